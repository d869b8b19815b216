import { Interval, OutboxRelay, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { JobSweeper } from './domain/job-sweeper.js';
import { JobsService } from './domain/jobs.service.js';
import { DrizzleJobsRepository } from './repositories/jobs.repository.js';
import { grpcPeers } from './repositories/peers.js';
import { busStatusPublisher } from './repositories/status.publisher.js';
import { grpcBinding } from './transport/grpc.js';
import { SYSTEM_ACCOUNT } from '@reelsmith/proto';
import { DemoReels } from './domain/demo-reels.js';
import { demoReelPorts } from './repositories/demo-reels.adapters.js';
import { WebhooksService } from './domain/webhooks/webhooks.service.js';
import { WEBHOOK_BACKOFF } from './domain/webhooks/backoff.js';
import { DbWebhookRepository } from './repositories/webhooks.repository.js';
import { httpWebhookSender } from './repositories/webhook-sender.js';
import { busDeliveryQueue, startWebhookConsumers } from './transport/webhook-events.js';
import { webhooksBinding } from './transport/webhooks.grpc.js';
import type { RunningConsumer } from '@reelsmith/kit';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const peers = grpcPeers(
    { billing: p.config.BILLING_GRPC_ADDR, media: p.config.MEDIA_LIBRARY_GRPC_ADDR },
    p.config.GRPC_DEADLINE_MS,
    p.metrics,
  );
  const repo = new DrizzleJobsRepository(p.db.orm, () => void relay.flush());
  const service = new JobsService(repo, peers, busStatusPublisher(p.bus), p.log);
  const ackWaitMs = p.config.RENDER_ACK_WAIT_MS;
  const sweeper = new JobSweeper(
    repo,
    service,
    peers,
    // A worker heartbeats every third of the ack wait; half an ack wait of slack covers one in flight.
    {
      ackWaitMs,
      maxDeliver: p.config.RENDER_MAX_DELIVER,
      graceMs: ackWaitMs / 2,
      holdAgeMs: Math.max(60_000, 4 * p.config.GRPC_DEADLINE_MS),
    },
    p.log,
  );
  // The starter library's video clips (media-library's ListLibrary), used by the system account.
  const demoPorts = demoReelPorts(p.config.MEDIA_LIBRARY_GRPC_ADDR, p.config.GRPC_DEADLINE_MS, p.metrics, service);
  const demoReels = new DemoReels(
    demoPorts,
    { ownerId: SYSTEM_ACCOUNT.id, pollMs: 5000, clipWaitMs: 10 * 60_000, jobWaitMs: 30 * 60_000 },
    p.log,
  );
  const sweeps = new Interval(() => sweeper.sweep(), p.config.SWEEP_INTERVAL_MS, p.log);
  const webhooks = new WebhooksService(
    new DbWebhookRepository(p.db),
    httpWebhookSender({ allowPrivate: p.config.WEBHOOK_ALLOW_PRIVATE, timeoutMs: p.config.WEBHOOK_TIMEOUT_MS }),
    busDeliveryQueue(p.bus),
    {
      allowPrivate: p.config.WEBHOOK_ALLOW_PRIVATE,
      publicUrl: p.config.PUBLIC_URL,
      backoff: { firstMs: p.config.WEBHOOK_RETRY_FIRST_MS, maxMs: WEBHOOK_BACKOFF.maxMs },
    },
  );
  let consumers: RunningConsumer[] = [];
  return {
    grpc: [grpcBinding(service, webhooks), webhooksBinding(webhooks)],
    start: async () => {
      relay.start();
      sweeps.start();
      consumers = await startWebhookConsumers(p.bus, webhooks, p.log);
      // In the background, low priority: one demo job at a time, never blocking start-up.
      if (p.config.DEMO_REELS) void demoReels.run().catch((e: unknown) => p.log.warn({ err: e }, 'demo reels stopped'));
    },
    drain: async () => {
      await Promise.all(consumers.map((c) => c.stop()));
    },
    close: async () => {
      demoReels.stop();
      demoPorts.close();
      await sweeps.stop();
      await relay.stop();
      peers.close();
    },
  };
}
