/**
 * The job path behind the gateway, for medium tests: billing, media-library and the orchestrator
 * in this process (each on its own PostgreSQL, over gRPC, with the outbox), local-disk storage
 * shared with the gateway, and a stand-in identity where a token names a user. No render worker
 * runs: a job stays queued until it is cancelled.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, LocalObjectStore, createMetrics, dial, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { assembly, billing, media } from '@reelsmith/proto';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { wire as wireMedia } from '../../services/media-library/src/app';
import { configSchema as mediaSchema } from '../../services/media-library/src/config';
import { wire as wireOrchestrator } from '../../services/assembly-orchestrator/src/app';
import { configSchema as orchestratorSchema } from '../../services/assembly-orchestrator/src/config';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { healthyReport, listenLocal, startService } from './in-process';

export const STACK_ORIGIN = 'http://localhost:8080';

/** A response body, checked by value in the specs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
export type Json = Record<string, any>;

export interface JobStack {
  store: LocalObjectStore;
  peers: Peers;
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` of the gateway. */
  base: string;
  /** A new user's session token. */
  signIn(): string;
  /** The user a token names. */
  userId(token: string): string;
  /** Uploads a local file as the token's user (POST /uploads/file); throws unless it is stored (201). */
  upload(token: string, file: string): Promise<Json>;
  stop(): Promise<void>;
}

export async function startJobStack(o: {
  dataDir: string;
  signingSecret: string;
  metricsName: string;
  /** The gateway's per-user rate limit, raised by a test that must really race. */
  rateLimitMax?: number;
}): Promise<JobStack> {
  const store = new LocalObjectStore({ root: path.join(o.dataDir, 'objects'), signingSecret: o.signingSecret, publicUrl: STACK_ORIGIN });
  const dbs: TestDatabase[] = [];
  const running: RunningService[] = [];
  const users = new Map<string, string>();
  const common = { DATA_DIR: o.dataDir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: natsPrefix(), LOG_LEVEL: 'silent' };
  const start = async (spec: Parameters<typeof startService>[0]) => {
    const s = await startService({ ...spec, outbox: true });
    running.push(s.running);
    dbs.push(s.db);
    return s.address;
  };
  const billingAddr = await start({ name: 'billing', schema: billingSchema, wire: wireBilling, env: common });
  const mediaAddr = await start({
    name: 'media-library',
    schema: mediaSchema,
    wire: wireMedia,
    env: { ...common, SIGNING_SECRET: o.signingSecret, PUBLIC_URL: STACK_ORIGIN, LIBRARY_STARTER_DIR: 'none', ANALYSIS_CONCURRENCY: '2' },
  });
  const jobsAddr = await start({
    name: 'assembly-orchestrator',
    schema: orchestratorSchema,
    wire: wireOrchestrator,
    env: { ...common, BILLING_GRPC_ADDR: billingAddr, MEDIA_LIBRARY_GRPC_ADDR: mediaAddr, DEMO_REELS: 'false' },
  });
  const opts = { deadlineMs: 60_000 };
  const clients = {
    billing: dial(billing.BillingService, billingAddr, opts),
    media: dial(media.MediaLibraryService, mediaAddr, opts),
    jobs: dial(assembly.AssemblyOrchestratorService, jobsAddr, opts),
  };
  const peers = {
    ...clients,
    identity: {
      authenticate: async ({ sessionToken }: { sessionToken: string }) => {
        const id = users.get(sessionToken);
        if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Please sign in to continue.', 'unauthenticated');
        return { user: { id, email: `${id}@example.com`, isAdmin: false, isGuest: false, unlimited: false } };
      },
    },
    close: () => Object.values(clients).forEach((c) => c.close()),
  } as unknown as Peers;
  const app = await buildHttpApp({
    log: quietLogger(),
    metrics: createMetrics(o.metricsName),
    webDist: o.dataDir,
    health: healthyReport,
    peers,
    store,
    files: { store, signingSecret: o.signingSecret },
    ...(o.rateLimitMax ? { rateLimitMax: o.rateLimitMax } : {}),
  });
  const base = await listenLocal(app);
  return {
    store,
    peers,
    app,
    base,
    signIn: () => {
      const token = crypto.randomBytes(16).toString('hex');
      users.set(token, crypto.randomUUID());
      return token;
    },
    userId: (token) => users.get(token)!,
    upload: async (token, file) => {
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
      const r = await fetch(`${base}/api/v1/uploads/file`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      const body = (await r.json()) as Json;
      if (r.status !== 201) throw new Error(`upload of ${path.basename(file)}: ${r.status} ${JSON.stringify(body)}`);
      return body;
    },
    stop: async () => {
      await app.close();
      peers.close();
      for (const s of running.reverse()) await s.stop();
      for (const d of dbs) await d.drop();
    },
  };
}
