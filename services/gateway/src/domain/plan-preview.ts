import { planMusicToWire, type EditPlanWire, type JobRequest, type PlanMusic } from '@reelsmith/proto';

/** Where a segment's thumbnail is cut from: a little into its source moment, in whole 100 ms (so frames are shared). */
export const segmentFrameMs = (s: { in: number; out: number }) => Math.round(Math.min(s.in + 0.5, (s.in + s.out) / 2) * 10) * 100;

/** The services a plan preview combines (bound to gRPC and storage in repositories/plan-preview.ts). */
export interface PlanPreviewPorts {
  /** The orchestrator's plan and estimate for the request (never reserves anything). */
  plan(
    ownerId: string,
    unlimited: boolean,
    request: PlanPreviewRequest,
  ): Promise<{ plan: EditPlanWire; estimateCredits: number; music?: PlanMusic }>;
  /** Media-library's small JPEG of each moment (cut once, cached); the object keys, in order. */
  frames(ownerId: string, moments: Array<{ objectKey: string; atMs: number }>): Promise<string[]>;
  /** A signed link to an object ('' stays null). */
  link(key: string): Promise<string | null>;
}

/** What POST /jobs/plan asks: the job request, and what to re-roll or keep. */
export interface PlanPreviewRequest {
  request: JobRequest;
  reroll: number[];
  locked: number[];
  seed: number;
}

/**
 * POST /jobs/plan: the orchestrator's plan, a thumbnail of each segment's moment from
 * media-library, and signed links to them; the music's beats and a waveform, rounded for the
 * timeline, with the song's sections. Reads only: nothing is reserved or stored besides the cached frames.
 */
export async function previewPlan(ports: PlanPreviewPorts, owner: { id: string; unlimited: boolean }, req: PlanPreviewRequest) {
  const r = await ports.plan(owner.id, owner.unlimited, req);
  const keys = await ports.frames(
    owner.id,
    r.plan.segments.map((s) => ({ objectKey: req.request.media_files[s.clip]!, atMs: segmentFrameMs(s) })),
  );
  const urls = await Promise.all(keys.map((k) => ports.link(k)));
  return {
    plan: { ...r.plan, segments: r.plan.segments.map((s, i) => ({ ...s, score: s.score ?? null, thumbnail_url: urls[i] ?? '' })) },
    estimate: { credits: r.estimateCredits },
    music: r.music ? planMusicToWire(r.music) : null,
  };
}
