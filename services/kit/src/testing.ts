/**
 * Helpers for medium tests: each test gets its own PostgreSQL database and its own NATS
 * namespace, and removes them afterwards. Nothing depends on what an earlier run left behind.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { DomainError } from './errors.js';
import { createLogger, type Logger } from './logger.js';

// Test helpers are the one place outside config.ts that reads the environment: they pick the
// machine's services, which docs/testing.md names.
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export const uniqueName = (label: string) => `${label}_${Date.now().toString(36)}_${crypto.randomBytes(4).toString('hex')}`;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates a fresh database on the machine's PostgreSQL. */
export async function createTestDatabase(label = 'rs'): Promise<TestDatabase> {
  const name = uniqueName(label).toLowerCase();
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

export function tempDir(label = 'rs'): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The test clips' video encoding: H.264, fast, 4:2:0 (what phones write, and what every player reads). */
export const TEST_H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/**
 * Writes test media made by ffmpeg's generators, so each property is exact and known: every entry
 * of `sources` is one lavfi input (`testsrc2=s=640x360:r=30:d=6`, `color=...`, `sine=...`,
 * `aevalsrc=...`), `args` the filters and encoding, `file` the output. Quiet, never reads stdin,
 * overwrites. The one way medium tests in every package make their clips and songs.
 */
export function makeTestMedia(file: string, sources: string[], args: string[] = []): string {
  execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...sources.flatMap((s) => ['-f', 'lavfi', '-i', s]), ...args, file]);
  return file;
}

/** A NATS subject/stream prefix unique to one test. */
export const natsPrefix = () => `${uniqueName('t')}.`;

export const quietLogger = (): Logger => createLogger({ service: 'test', level: 'silent' });

/** The DomainError `p` rejects with; fails when it resolves or rejects with anything else. */
export async function domainFailure(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof DomainError) return e;
  throw new Error(`expected a DomainError, got ${String(e)}`);
}

/** An info-level logger for `service` that keeps each JSON line it writes in `lines`, for tests that read the logs. */
export function capturingLogger(service: string): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: createLogger({ service, level: 'info', destination: destination as never }), lines };
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** One message as a real SMTP server received it. */
export interface ReceivedMail {
  /** The envelope's sender and first recipient. */
  from: string;
  to: string;
  /** The message as sent over the wire (headers and encoded body, CRLF line ends). */
  raw: string;
}

export interface SmtpStandIn {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  port: number;
  /** Every message received, in order. */
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on a free loopback port that accepts every message, without
 * authentication or TLS, and keeps it; `onMail` also sees each one as it arrives.
 */
export async function startSmtpStandIn(onMail?: (mail: ReceivedMail) => void): Promise<SmtpStandIn> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        const mail = { from: from ? from.address : '', to: session.envelope.rcptTo[0]?.address ?? '', raw };
        mails.push(mail);
        onMail?.(mail);
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, port, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}
