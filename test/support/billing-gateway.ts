/**
 * Billing alone behind the gateway, for the payment-provider medium tests (Stripe, PayPal webhooks):
 * billing with its transactional outbox on a fresh database, and the gateway's HTTP app on a free
 * loopback port dialling it.
 */
import type { FastifyInstance } from 'fastify';
import { createMetrics, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { gatewayPeers, healthyReport, listenLocal, startService } from './in-process';

export interface BillingGateway {
  db: TestDatabase;
  billing: RunningService;
  peers: Peers;
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>/api/v1` */
  base: string;
  /** Closes the gateway, the clients and billing, and drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts billing on a fresh database named after `label` with `env` (the provider's settings) added
 * to the common environment, and the gateway in front of it; `dataDir` is billing's DATA_DIR and the
 * gateway's web folder.
 */
export async function startBillingGateway(label: string, dataDir: string, env: Record<string, string>): Promise<BillingGateway> {
  const db = await createTestDatabase(label);
  const billing = (
    await startService({
      name: 'billing',
      schema: billingSchema,
      wire: wireBilling,
      env: { DATA_DIR: dataDir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: natsPrefix(), LOG_LEVEL: 'silent', ...env },
      outbox: true,
      db,
    })
  ).running;
  const peers = gatewayPeers({ billing: `127.0.0.1:${billing.grpcPort}` });
  const app = await buildHttpApp({ log: quietLogger(), metrics: createMetrics('gateway'), webDist: dataDir, health: healthyReport, peers });
  const base = `${await listenLocal(app)}/api/v1`;
  return {
    db,
    billing,
    peers,
    app,
    base,
    async stop() {
      await app.close();
      peers.close();
      await billing.stop();
      await db.drop();
    },
  };
}
