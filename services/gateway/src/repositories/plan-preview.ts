import { planToWire, toJobRequestMessage } from '@reelsmith/proto';
import type { PlanPreviewPorts } from '../domain/plan-preview.js';
import type { LinkSigner } from '../domain/job-status.js';
import { LINK_SECONDS } from '../domain/job-status.js';
import type { Peers } from './clients.js';

/** The plan preview over the orchestrator, media-library's frames and signed storage links. */
export function planPreviewPorts(peers: Peers, signer: LinkSigner, requestId: string): PlanPreviewPorts {
  return {
    async plan(ownerId, unlimited, req) {
      const r = await peers.jobs.planJob(
        {
          ownerId,
          unlimited,
          request: toJobRequestMessage(req.request),
          reroll: req.reroll,
          locked: req.locked,
          seed: BigInt(req.seed),
        },
        { requestId },
      );
      if (!r.plan) throw new Error('the orchestrator answered no plan');
      return { plan: planToWire(r.plan, req.request.aspect), estimateCredits: Number(r.estimateCredits), music: r.music };
    },
    async frames(ownerId, moments) {
      const { frameKeys } = await peers.media.getFrames(
        { ownerId, frames: moments.map((m) => ({ objectKey: m.objectKey, atMs: BigInt(m.atMs) })) },
        { requestId },
      );
      return frameKeys;
    },
    link: (key) => (key ? signer.signedUrl(key, { expiresInSeconds: LINK_SECONDS }) : Promise.resolve(null)),
  };
}
