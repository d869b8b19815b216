/**
 * The gateway's OpenAPI document, built from its routes without any service running (the peers
 * and storage are never called). `npm run gen` writes the web client's types from it.
 */
import os from 'node:os';
import path from 'node:path';
import { LocalObjectStore, createLogger, createMetrics } from '@reelsmith/kit';
import type { Peers } from './repositories/clients.js';
import { buildHttpApp } from './transport/http/server.js';

const unused = new Proxy({} as Peers, {
  get: (_t, name) => (name === 'close' ? () => undefined : new Proxy({}, { get: () => () => Promise.reject(new Error('not running')) })),
});

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = path.join(os.tmpdir(), 'reelsmith-openapi');
  const store = new LocalObjectStore({ root: dir, signingSecret: 'x'.repeat(32), publicUrl: 'http://localhost:8080' });
  const app = await buildHttpApp({
    log: createLogger({ service: 'openapi', level: 'silent' }),
    metrics: createMetrics('openapi'),
    webDist: dir,
    health: { report: () => Promise.reject(new Error('not running')) },
    peers: unused,
    store,
    files: { store, signingSecret: 'x'.repeat(32) },
  });
  await app.ready();
  const doc = app.swagger() as unknown as Record<string, unknown>;
  await app.close();
  return doc;
}
