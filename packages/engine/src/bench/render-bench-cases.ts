// Render bench cases beside the main comparison: the long reel and the hand-written single pass.

import fs from 'node:fs';
import path from 'node:path';
import type { MediaInfo } from '../probe.js';
import { fontFile } from '../fonts.js';
import { fadeTimes, filterValue } from '../render-args.js';
import { buildChunkArgs, planBatches } from '../render-batch-args.js';
import { renderReel } from '../render.js';
import { parseSettings, type RenderSettings } from '../settings.js';
import type { EditPlan } from '../plan.js';
import { ff, H264_FAST, log, now, OUTPUT_CODECS, peakChildMemory } from './render-bench-tools.js';

export async function longReel(dir: string): Promise<string[]> {
  const minutes = 12;
  // One minute of 1080p30 (the size of phone footage, which sets each decoder's memory), looped
  // to twelve by copying: an encode of the whole twelve minutes would take longer than the render.
  const minute = path.join(dir, 'long-1min-1080p.mp4');
  const clip = path.join(dir, 'long-12min-1080p.mp4');
  log(`generating a ${minutes}-minute 1920x1080 clip for the long reel...`);
  ff([
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=1920x1080:rate=30:duration=60',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000:duration=60',
    '-ac',
    '2',
    ...H264_FAST,
    '-g',
    '60',
    '-c:a',
    'aac',
    '-shortest',
    minute,
  ]);
  ff(['-stream_loop', String(minutes - 1), '-i', minute, '-c', 'copy', clip]);
  log('rendering the long reel...');
  const settings = parseSettings({ pacing_preset: 'standard', enable_intelligence: false });
  const t = now();
  const { value: r, peakBytes } = await peakChildMemory(() =>
    renderReel({ clips: [clip], output: path.join(dir, 'long.mp4'), settings, tmpRoot: dir }),
  );
  const wall = now() - t;
  // The command lines it ran, rebuilt by the same pure functions: inputs and bytes per process.
  const batches = planBatches(r.plan, r.clips);
  const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
  const chunkArgs = batches.map(
    (batch) =>
      buildChunkArgs({
        clips: r.clips,
        plan: r.plan,
        settings,
        batch,
        totalFrames,
        video: 'c.mp4',
        title: { assFile: 'title.ass' },
      }).args,
  );
  const maxInputs = Math.max(...chunkArgs.map((a) => a.filter((x) => x === '-i').length));
  const maxBytes = Math.max(...chunkArgs.map((a) => a.reduce((s, x) => s + Buffer.byteLength(x) + 1, 0)));
  const f = (x: number) => x.toFixed(2);
  const ratio = peakBytes / 2 ** 30;
  return [
    `long reel: ${minutes}-minute 1920x1080 clip (testsrc, one minute looped), no music, standard pacing -> ${f(r.durationSec)} s reel at 1920x1080 30 fps, ${r.plan.segments.length} segments in ${batches.length} batches (at most ${maxInputs} inputs and ${(maxBytes / 1024).toFixed(1)} KiB of arguments per ffmpeg process)`,
    `long reel render         ${f(wall)} s wall  (${f(r.durationSec / wall)}x real time)`,
    `long reel peak memory    ${f(peakBytes / 2 ** 20)} MiB  = ${f(ratio)}x the 1 GiB goal   target <= 1.00x  ${ratio <= 1 ? 'meets target' : 'MISSES target'}`,
  ];
}

/**
 * The same plan as one ffmpeg command written by hand, the way a person would: each segment
 * seeked, scaled into the frame with bars and set to 30 fps, concatenated, the title drawn with
 * drawtext, fades, the music faded and cut to length, x264 veryfast CRF 21 and AAC. It skips what
 * the engine adds for exactness (frame-exact segment lengths, libass titles with fallback fonts).
 */
export function handWrittenArgs(
  plan: EditPlan,
  clips: MediaInfo[],
  music: MediaInfo,
  settings: RenderSettings,
  dir: string,
  output: string,
): string[] {
  const args = ['-v', 'error', '-y'];
  const parts: string[] = [];
  plan.segments.forEach((seg, i) => {
    args.push('-ss', String(seg.in), '-t', String(seg.end - seg.start), '-i', clips[seg.clip]!.path);
    parts.push(
      `[${i}:v]scale=1920:1080:force_original_aspect_ratio=decrease,pad=1920:1080:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=30,format=yuv420p[v${i}]`,
    );
  });
  args.push('-i', music.path);
  const n = plan.segments.length;
  const total = plan.totalSec;
  const fades = fadeTimes(settings, total) ?? { in: 0.001, out: 0.001 };
  const textFile = path.join(dir, 'hand-title.txt');
  fs.writeFileSync(textFile, settings.title_config.text);
  parts.push(`${plan.segments.map((_, i) => `[v${i}]`).join('')}concat=n=${n}:v=1:a=0[vc]`);
  parts.push(
    `[vc]drawtext=fontfile=${filterValue(fontFile('roboto'))}:textfile=${filterValue(textFile)}:fontsize=${settings.title_config.font_size}:fontcolor=white:borderw=3:x=(w-tw)/2:y=(h-th)/2:enable='lt(t,4)',` +
      `fade=t=in:st=0:d=${fades.in},fade=t=out:st=${total - fades.out}:d=${fades.out}[v]`,
  );
  parts.push(`[${n}:a]atrim=0:${total},afade=t=in:st=0:d=${fades.in},afade=t=out:st=${total - fades.out}:d=${fades.out}[a]`);
  args.push('-filter_complex', parts.join(';'), '-map', '[v]', '-map', '[a]', ...OUTPUT_CODECS, '-movflags', '+faststart', output);
  return args;
}

/**
 * Real footage as a camera stores it: the starter library's ten clips (traffic, office, bottles,
 * animation, signing; 67 s) at 1920x1080 30 fps with a keyframe every 2 s and none at cuts.
 */
