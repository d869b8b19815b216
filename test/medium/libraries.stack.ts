// The stack libraries.spec.ts runs on: media-library on PostgreSQL importing ffmpeg-made files (the
// CLI's path, on its own database connection while the service runs), the gateway's routes over
// gRPC to it, local-disk storage shared by both. Identity and billing are stand-ins: a token names
// a user, and a user's plan decides their entitlements.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import {
  DomainError,
  ErrorCode,
  LocalObjectStore,
  createMetrics,
  dial,
  openDatabase,
  type Client,
  type Database,
  type RunningService,
} from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { media } from '@reelsmith/proto';
import { wire as wireMedia } from '../../services/media-library/src/app';
import { configSchema as mediaSchema } from '../../services/media-library/src/config';
import { LibraryService } from '../../services/media-library/src/domain/library.service';
import { ReelsService } from '../../services/media-library/src/domain/reels.service';
import { DrizzleLibraryRepository } from '../../services/media-library/src/repositories/library.repository';
import { DrizzleMediaRepository } from '../../services/media-library/src/repositories/media.repository';
import { libraryObjects, libraryTools } from '../../services/media-library/src/repositories/media-tools';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { healthyReport, listenLocal, startService } from '../support/in-process';
import { ffmpeg as ff, makeClip } from '../support/media';

const SECRET = 'library-test-signing-secret-0123456789';
export const ORIGIN = 'http://localhost:8080';

const video = (file: string, hue: number, seconds = 2) => makeClip(file, { size: '160x120', fps: 15, seconds, hue });
/** 12 s of a rock beat at `bpm`: a kick on beats 1 and 3, a snare-like tone on 2 and 4, eighth-note hats. */
const music = (file: string, bpm: number) => {
  const b = 60 / bpm;
  const kick = `0.8*sin(2*PI*60*t)*exp(-14*mod(t,${2 * b}))`;
  const snare = `0.35*sin(2*PI*180*t+6*sin(2*PI*1130*t))*exp(-18*mod(t+${b},${2 * b}))`;
  const hats = `0.12*sin(2*PI*7000*t+3*sin(2*PI*3100*t))*exp(-60*mod(t,${b / 2}))`;
  ff('-f', 'lavfi', '-i', `aevalsrc='${kick}+${snare}+${hats}':s=22050:d=12`, '-c:a', 'libmp3lame', '-b:a', '64k', file);
};

export type VideoList = {
  files: Array<{
    key: string;
    filename: string;
    category: string;
    size: number;
    url: string;
    thumbnail_url: string;
    preview_frames: string[];
    duration: number;
  }>;
  categories: string[];
  total: number;
};
export type MusicList = {
  files: Array<{ key: string; filename: string; title: string; category: string; size: number; duration: number; bpm: number }>;
  categories: string[];
  total: number;
};

/**
 * Writes the folder to import (videos in categories, two beat tracks, a broken file, a licence
 * note) and starts the stack before the calling describe's tests; stops it all after. What it sets
 * up as it starts (the gateway's address, the gRPC client, the services) is read on the returned
 * object once the tests run.
 */
export function librariesStack() {
  const data = tempDir('libraries');
  const input = path.join(data.dir, 'import');
  const store = new LocalObjectStore({ root: path.join(data.dir, 'objects'), signingSecret: SECRET, publicUrl: ORIGIN });
  let db: TestDatabase;
  let conn: Database;
  let svc: RunningService;
  let lib: LibraryService;
  let reels: ReelsService;
  let app: FastifyInstance;
  let base: string;
  let client: Client<typeof media.MediaLibraryService>;
  const users = new Map<string, { id: string; plan: 'free' | 'standard'; admin: boolean }>();
  const dialMedia = (addr: string) => dial(media.MediaLibraryService, addr, { deadlineMs: 60_000 });

  const signIn = (plan: 'free' | 'standard' = 'free', admin = false) => {
    const token = crypto.randomBytes(16).toString('hex');
    const user = { id: crypto.randomUUID(), plan, admin };
    users.set(token, user);
    return { token, ...user };
  };

  beforeAll(async () => {
    for (const d of ['nature', 'city', 'beats', 'junk']) fs.mkdirSync(path.join(input, d), { recursive: true });
    video(path.join(input, 'nature', 'Forest Walk.mp4'), 90);
    video(path.join(input, 'nature', 'river.mp4'), 180);
    video(path.join(input, 'city', 'Night Traffic.mp4'), 270);
    video(path.join(input, 'loose-clip.mp4'), 0);
    music(path.join(input, 'beats', 'slow-90.mp3'), 90);
    music(path.join(input, 'beats', 'fast-140.mp3'), 140);
    fs.writeFileSync(path.join(input, 'junk', 'broken.mp4'), 'this is not a video');
    fs.writeFileSync(path.join(input, 'nature', 'Forest Walk.mp4.LICENSE.txt'), 'CC0');

    db = await createTestDatabase('library');
    svc = (
      await startService({
        name: 'media-library',
        schema: mediaSchema,
        wire: wireMedia,
        env: {
          DATA_DIR: data.dir,
          NATS_URL: TEST_NATS_URL,
          NATS_PREFIX: natsPrefix(),
          SIGNING_SECRET: SECRET,
          PUBLIC_URL: ORIGIN,
          LIBRARY_STARTER_DIR: 'none',
        },
        db,
      })
    ).running;
    conn = await openDatabase({ url: db.url, pgliteDir: '' });
    lib = new LibraryService(new DrizzleLibraryRepository(conn.orm), libraryObjects(store), libraryTools, quietLogger());
    reels = new ReelsService(new DrizzleMediaRepository(conn.orm), store, quietLogger());
    client = dialMedia(`127.0.0.1:${svc.grpcPort}`);

    const peers = {
      media: client,
      identity: {
        authenticate: async ({ sessionToken }: { sessionToken: string }) => {
          const u = users.get(sessionToken);
          if (!u) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Please sign in to continue.', 'unauthenticated');
          return { user: { id: u.id, email: `${u.id}@example.com`, isAdmin: u.admin, isGuest: false, unlimited: false } };
        },
      },
      billing: {
        // The caps as billing answers them (its own tests cover the rule).
        getAccount: async ({ userId }: { userId: string }) => {
          const paid = [...users.values()].find((u) => u.id === userId)?.plan === 'standard';
          return {
            account: {
              entitlements: {
                librarySelectionCap: paid ? 1000 : 20,
                selectionLimitMessage: paid
                  ? 'Subscriber plan allows up to 1000 video selections.'
                  : 'Free plan allows up to 20 video selections.',
              },
            },
          };
        },
      },
      jobs: {},
      close: () => undefined,
    } as unknown as Peers;
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway_libraries'),
      webDist: data.dir,
      health: healthyReport,
      peers,
      store,
      files: { store, signingSecret: SECRET },
    });
    base = await listenLocal(app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    client?.close();
    await svc?.stop();
    await conn?.close();
    await db?.drop();
    data.remove();
  });

  const call = async <T = Record<string, unknown>>(
    method: string,
    route: string,
    token?: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const r = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const buf = Buffer.from(await r.arrayBuffer());
    let parsed: unknown = buf;
    if ((r.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(buf.toString());
    return { status: r.status, body: parsed as T, headers: r.headers, bytes: buf.length };
  };

  return {
    data,
    input,
    store,
    signIn,
    call,
    get base() {
      return base;
    },
    get client() {
      return client;
    },
    get lib() {
      return lib;
    },
    get reels() {
      return reels;
    },
  };
}
