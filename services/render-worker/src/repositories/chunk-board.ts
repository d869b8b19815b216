import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { pipeline } from 'node:stream/promises';
import { LocalObjectStore, type Logger, type ObjectStore } from '@reelsmith/kit';
import type { ChunkBoard, ChunkFailure, ChunkRecord } from '../domain/render.ports.js';

/** This process as the job's records name it: the host (the pod on a cluster) and the pid. */
export const WORKER_NAME = `${os.hostname()}/${process.pid}`;

const pad = (k: number) => String(k).padStart(4, '0');
/** Scratch objects of one job; everything under it is deleted when the job ends. */
export const jobScratchPrefix = (jobId: string) => `scratch/${jobId}/`;
const keys = (jobId: string, planKey: string) => {
  const base = `${jobScratchPrefix(jobId)}${planKey}/`;
  return {
    manifest: `${base}manifest.json`,
    failed: `${base}failed.json`,
    thumbnail: `${base}thumb.jpg`,
    chunk: (k: number) => `${base}chunk-${pad(k)}.mp4`,
    record: (k: number) => `${base}chunk-${pad(k)}.json`,
  };
};

/** A small JSON object, or null when there is none (also when the job's scratch goes while it is read). */
async function readJson<T>(store: ObjectStore, key: string): Promise<T | null> {
  if (!(await store.stat(key))) return null;
  const parts: Buffer[] = [];
  try {
    for await (const c of await store.get(key)) parts.push(c as Buffer);
  } catch (e) {
    if (!(await store.stat(key))) return null;
    throw e;
  }
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as T;
}

const json = (x: unknown) => Buffer.from(JSON.stringify(x));

/** An object as a local file: the file itself on local disk, a download otherwise. */
async function localFile(store: ObjectStore, key: string, target: string): Promise<string> {
  if (store instanceof LocalObjectStore) return store.pathOf(key);
  await pipeline(await store.get(key), fs.createWriteStream(target));
  return target;
}

/**
 * The chunks of long reels in object storage, under `scratch/<job>/<plan key>/`: `manifest.json`
 * (the attempt coordinating), `chunk-<index>.mp4` and its record `chunk-<index>.json` (written
 * last), `thumb.jpg`, and `failed.json` when a chunk failed for good.
 */
export function chunkBoard(store: ObjectStore, log: Logger): ChunkBoard {
  return {
    planKey: (plan, settings, batches) =>
      crypto.createHash('sha256').update(JSON.stringify({ plan, settings, batches })).digest('hex').slice(0, 16),
    async open(ref, manifest) {
      const k = keys(ref.jobId, ref.planKey);
      // A failure left by an earlier coordinator is not this one's: its chunks are retried.
      await store.delete(k.failed).catch(() => undefined);
      await store.put(k.manifest, json({ attempt: ref.attempt, ...manifest }));
    },
    async coordinatedAttempt(jobId, planKey) {
      const m = await readJson<{ attempt: number }>(store, keys(jobId, planKey).manifest);
      return m ? m.attempt : null;
    },
    record: (jobId, planKey, index) => readJson<ChunkRecord>(store, keys(jobId, planKey).record(index)),
    failure: (jobId, planKey) => readJson<ChunkFailure>(store, keys(jobId, planKey).failed),
    async markFailed(jobId, planKey, failure) {
      await store.put(keys(jobId, planKey).failed, json(failure), { contentType: 'application/json' });
    },
    async storeChunk(ref, files, record) {
      const k = keys(ref.jobId, ref.planKey);
      if (files.thumbnail) await store.put(k.thumbnail, fs.createReadStream(files.thumbnail), { contentType: 'image/jpeg' });
      await store.put(k.chunk(ref.index), fs.createReadStream(files.chunk), { contentType: 'video/mp4' });
      // The record last: a coordinator that sees it finds the chunk complete.
      await store.put(k.record(ref.index), json(record), { contentType: 'application/json' });
    },
    async fetchChunk(jobId, planKey, index, target) {
      const local = await localFile(store, keys(jobId, planKey).chunk(index), target);
      if (local !== target) fs.symlinkSync(local, target);
    },
    async fetchThumbnail(jobId, planKey, target) {
      const local = await localFile(store, keys(jobId, planKey).thumbnail, `${target}.download`);
      fs.copyFileSync(local, target);
    },
    fetchClip: (key, target) => localFile(store, key, target),
    async dropJob(jobId) {
      await store.deletePrefix(jobScratchPrefix(jobId)).catch((e: unknown) => log.warn({ err: e, job_id: jobId }, 'scratch not deleted'));
    },
  };
}
