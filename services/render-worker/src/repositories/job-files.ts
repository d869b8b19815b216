import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LocalObjectStore, type Client, type ObjectStore } from '@reelsmith/kit';
import { analysisDoc, isClipAnalysis, isMusicAnalysis, type media } from '@reelsmith/proto';
import { processAlive, sweepFilterScripts, type ClipAnalysis, type MusicAnalysis } from '@reelsmith/engine';
import type { JobInputs, ReelStore, Scratch } from '../domain/render-job.service.js';

/** A local path for an object: the file itself on local disk, a download otherwise. */
async function localFile(store: ObjectStore, key: string, target: string): Promise<string> {
  if (store instanceof LocalObjectStore) return store.pathOf(key);
  await pipeline(await store.get(key), fs.createWriteStream(target));
  return target;
}

/** A job's files from object storage and their upload-time analyses from media-library. */
export function jobInputs(store: ObjectStore, mediaLibrary: Client<typeof media.MediaLibraryService>): JobInputs {
  return {
    async fetch(job, dir) {
      const { media_files: clipKeys, music_file: musicKey } = job.request;
      const keys = [...clipKeys, ...(musicKey ? [musicKey] : [])];
      const { items } = await mediaLibrary.getMedia({ ownerId: job.ownerId, objectKeys: keys });
      const files = await Promise.all(keys.map((k, i) => localFile(store, k, path.join(dir, `in-${i}${path.extname(k)}`))));
      const analyses = items.map((m) => (m.analysisStatus === 'done' ? analysisDoc(m.analysis) : undefined));
      const n = clipKeys.length;
      return {
        clips: files.slice(0, n),
        music: musicKey ? files[n] : undefined,
        analyses: {
          clips: analyses.slice(0, n).map((a): ClipAnalysis | undefined => (isClipAnalysis(a) ? a : undefined)),
          music: musicKey && isMusicAnalysis(analyses[n]) ? (analyses[n] satisfies MusicAnalysis) : undefined,
        },
      };
    },
  };
}

/** Finished reels and thumbnails under `reels/<user>/<job>.mp4|.jpg`. */
export function reelStore(store: ObjectStore): ReelStore {
  return {
    async save(job, files) {
      const outputKey = `reels/${job.ownerId}/${job.id}.mp4`;
      const thumbnailKey = `reels/${job.ownerId}/${job.id}.jpg`;
      const stored = await store.put(outputKey, fs.createReadStream(files.output), { contentType: 'video/mp4' });
      await store.put(thumbnailKey, fs.createReadStream(files.thumbnail), { contentType: 'image/jpeg' });
      return { outputKey, thumbnailKey, sizeBytes: stored.size };
    },
  };
}

export const SCRATCH_PREFIX = 'reelsmith-job-';

/**
 * One folder per job under WORK_DIR, named after the worker process that made it. `filterDir`:
 * where the engine writes long filter graphs (the system's temporary folder).
 */
export function scratchDirs(workDir: string, pid = process.pid, filterDir = os.tmpdir()): Scratch & { sweep(): Promise<number> } {
  const prefix = `${SCRATCH_PREFIX}${pid}-`;
  return {
    create: () => fs.promises.mkdtemp(path.join(workDir, prefix)),
    remove: (dir) => fs.promises.rm(dir, { recursive: true, force: true }),
    /**
     * Removes the folders of workers that are gone (killed mid-job: their jobs are redelivered and
     * start afresh), and their filter-graph files in `filterDir`. Run at start, before this worker
     * takes a job; the folders and files of a live worker sharing them are left alone.
     */
    async sweep() {
      let removed = 0;
      for (const e of await fs.promises.readdir(workDir, { withFileTypes: true }).catch(() => [])) {
        const m = new RegExp(`^${SCRATCH_PREFIX}(\\d+)-`).exec(e.name);
        if (!e.isDirectory() || !m) continue;
        const owner = Number(m[1]);
        if (owner !== pid && processAlive(owner)) continue;
        await fs.promises.rm(path.join(workDir, e.name), { recursive: true, force: true });
        removed++;
      }
      // And the long filter graphs their ffmpeg read from files (the engine's exec.ts).
      return removed + (await sweepFilterScripts(filterDir));
    },
  };
}
