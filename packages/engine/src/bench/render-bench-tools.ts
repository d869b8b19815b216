// The render bench's measuring tools: ffmpeg runners, timing, memory peaks, PSNR, medians.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { execMedia } from '../exec.js';

export const ff = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });
export const now = () => performance.now() / 1000;
export const log = (s: string) => process.stdout.write(`${s}\n`);

/** ffmpeg through the engine's executor (no shell; extra environment such as the fonts). */
export const run = (args: string[], env?: Record<string, string>) =>
  execMedia('ffmpeg', args, { timeoutMs: 600_000, env }).then(() => undefined);

/**
 * Peak resident memory (VmHWM) of this process' ffmpeg children while `fn` runs. It reads only
 * the kernel's list of our own children, so sampling costs next to nothing; a full /proc scan
 * every 50 ms took about 5 % of a core from the render it measured.
 */
export async function peakChildMemory<T>(fn: () => Promise<T>): Promise<{ value: T; peakBytes: number }> {
  let peak = 0;
  const children = `/proc/${process.pid}/task/${process.pid}/children`;
  const sample = () => {
    let pids: string[] = [];
    try {
      pids = fs.readFileSync(children, 'utf8').split(' ').filter(Boolean);
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        if (!/^Name:\s+ffmpeg$/m.test(status)) continue;
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
      } catch {
        // the process ended between listing and reading
      }
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const value = await fn();
    return { value, peakBytes: peak };
  } finally {
    clearInterval(timer);
  }
}

/** The engine's output codecs, for the floor's encode and the naive pipeline's final pass. */
/** Quick H.264 for the bench's own synthetic inputs (not what is measured). */
export const H264_FAST = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

export const OUTPUT_CODECS = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-c:a', 'aac', '-b:a', '192k'];

/** The reel's raw frames (30 fps yuv420p, 1920x1080 unless `size` says otherwise) as an ffmpeg input. */
export const rawInput = (file: string, size = { width: 1920, height: 1080 }) => [
  '-f',
  'rawvideo',
  '-pix_fmt',
  'yuv420p',
  '-s',
  `${size.width}x${size.height}`,
  '-r',
  '30',
  '-i',
  file,
];

/** Average PSNR (dB) of a video's frames against raw 1080p30 yuv420p frames. */
export function psnr(file: string, raw: string): number {
  const r = spawnSync('ffmpeg', ['-i', file, ...rawInput(raw), '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-'], { encoding: 'utf8' });
  const m = / average:([\d.]+|inf)/.exec(r.stderr);
  if (!m) throw new Error(`psnr failed: ${r.stderr.slice(-500)}`);
  return m[1] === 'inf' ? Infinity : Number(m[1]);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The CPU floor's two halves for a render's filter graph (`decodeArgs`: its inputs, graph and maps,
 * without the encoder): `writeRaw` writes the graph's unencoded output once (frames to `raw`, sound
 * to `wav`; not timed), `floorOnce` times decoding and filtering with no encode, then encoding the
 * output of `size` from those raw frames.
 */
export function cpuFloor(
  decodeArgs: string[],
  files: { raw: string; wav: string; out: string },
  size?: { width: number; height: number },
  env?: Record<string, string>,
) {
  return {
    writeRaw: () =>
      run(
        [
          ...decodeArgs.filter((a) => a !== '[aout]' && a !== '[vout]' && a !== '-map'),
          '-map',
          '[vout]',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'yuv420p',
          files.raw,
          '-map',
          '[aout]',
          '-c:a',
          'pcm_s16le',
          files.wav,
        ],
        env,
      ),
    floorOnce: async () => {
      let t = now();
      await run([...decodeArgs, '-f', 'null', '-'], env);
      const decodeFilter = now() - t;
      t = now();
      await run([
        '-v',
        'error',
        '-y',
        ...rawInput(files.raw, size),
        '-i',
        files.wav,
        ...OUTPUT_CODECS,
        '-movflags',
        '+faststart',
        files.out,
      ]);
      return { decodeFilter, encode: now() - t };
    },
  };
}
