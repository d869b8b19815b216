// The render bench's inputs: the generated corpus and the starter library's real footage.

import fs from 'node:fs';
import path from 'node:path';
import { clipSamples, scoreStats } from '../clip-analysis.js';
import { probe } from '../probe.js';
import { ff, H264_FAST, log, now } from './render-bench-tools.js';

export function makeCorpus(dir: string): { clips: string[]; music30: string; track10m: string } {
  const p = (n: string) => path.join(dir, n);
  // A keyframe every 2 s in every clip, as phone and camera footage has (the encoders' default of
  // 250 frames would make every clip one GOP and every seek decode seconds of frames it then
  // discards). The 4K and HEVC clips set it too: without it their seeks decoded from 0.
  const x264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '60'];
  const tone = (hz: number, d: number, ch = 2) => [
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${hz}:sample_rate=48000:duration=${d}`,
    '-ac',
    String(ch),
    '-c:a',
    'aac',
    '-shortest',
  ];
  log('generating the corpus (10 clips, a 30 s track, a 10-minute 120 BPM track)...');
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=8', ...tone(440, 8), ...x264, p('c01-1080p30.mp4')]);
  ff(['-f', 'lavfi', '-i', 'mandelbrot=size=1920x1080:rate=30', '-t', '8', ...tone(330, 8), ...x264, p('c02-1080p30.mov')]);
  ff(['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=60:duration=8', ...tone(550, 8), ...x264, p('c03-720p60.mp4')]);
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=1080x1920:rate=30:duration=8', ...tone(660, 8), ...x264, p('c04-portrait.mp4')]);
  ff(['-f', 'lavfi', '-i', 'smptehdbars=size=1280x720:rate=30:duration=8', '-vf', 'transpose=2', ...x264, p('c05-raw.mp4')]);
  ff(['-i', p('c05-raw.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=270', p('c05-rotated.mp4')]);
  fs.rmSync(p('c05-raw.mp4'));
  ff([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=30:duration=8',
    '-vf',
    "select='gt(random(0),0.35)'",
    '-fps_mode',
    'vfr',
    ...x264,
    p('c06-vfr.mkv'),
  ]);
  ff(['-f', 'lavfi', '-i', 'testsrc2=size=3840x2160:rate=25:duration=6', ...tone(220, 6), ...H264_FAST, '-g', '50', p('c07-4k25.mp4')]);
  ff([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1920x1080:rate=30:duration=8',
    ...tone(770, 8),
    '-c:v',
    'libx265',
    '-preset',
    'ultrafast',
    '-x265-params',
    'log-level=error:keyint=60:min-keyint=60',
    '-tag:v',
    'hvc1',
    '-pix_fmt',
    'yuv420p',
    p('c08-hevc.mp4'),
  ]);
  ff(['-f', 'lavfi', '-i', 'rgbtestsrc=size=1280x720:rate=24:duration=8', ...x264, p('c09-noaudio.avi')]);
  ff(['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30:duration=8', ...tone(880, 8, 1), ...x264, p('c10-mono.mp4')]);
  const beat =
    "aevalsrc='(1+0.6*lt(mod(t\\,2)\\,0.5))*0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.25*sin(2*PI*7000*t+3*sin(2*PI*3100*t))*exp(-60*mod(t+0.25\\,0.5))'";
  ff(['-f', 'lavfi', '-i', `${beat}:s=44100:d=600`, '-c:a', 'libmp3lame', '-b:a', '160k', p('track-10min-120bpm.mp3')]);
  ff(['-f', 'lavfi', '-i', `${beat}:s=44100:d=30`, '-c:a', 'libmp3lame', '-b:a', '160k', p('music-30s.mp3')]);
  const clips = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('c'))
    .sort()
    .map(p);
  return { clips, music30: p('music-30s.mp3'), track10m: p('track-10min-120bpm.mp3') };
}

/**
 * A paid user's 12-minute reel: one 12-minute clip, no music, so the reel is as long as the clip.
 * The clip is 1080p testsrc; the reel is the engine's usual
 * 1920x1080 30 fps at the spec's defaults (title, fades), without Intelligence (no analysis to
 * wait for). Peak memory is the highest VmHWM of any of the render's ffmpeg processes.
 */

export function realFootage(dir: string): string {
  const starter = path.resolve(__dirname, '..', '..', '..', '..', 'media', 'starter');
  const clips = fs
    .readdirSync(starter, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.mp4'))
    .sort()
    .map((f) => path.join(starter, f));
  const out = path.join(dir, 'real-footage-1080p.mp4');
  const fit = 'scale=1920:1080:force_original_aspect_ratio=decrease,pad=1920:1080:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=30,format=yuv420p';
  ff([
    ...clips.flatMap((c) => ['-i', c]),
    '-filter_complex',
    `${clips.map((_, i) => `[${i}:v]${fit}[v${i}]`).join(';')};${clips.map((_, i) => `[v${i}]`).join('')}concat=n=${clips.length}:v=1:a=0[v]`,
    '-map',
    '[v]',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '60',
    '-sc_threshold',
    '0',
    out,
  ]);
  return out;
}

/** Dense against sparse (auto) analysis of one file: times, decoded share, and whether they agree. */
export async function compareDecodings(file: string): Promise<string> {
  const info = await probe(file, 'clip');
  let t = now();
  const dense = await clipSamples(file, info.durationSec, undefined, undefined, { decode: 'dense' });
  const denseSec = now() - t;
  t = now();
  const auto = await clipSamples(file, info.durationSec, undefined, undefined, { video: info.video });
  const autoSec = now() - t;
  const d = scoreStats(dense.stats, 0.125, info.durationSec);
  const a = scoreStats(auto.stats, 0.125, info.durationSec);
  let flags = 0;
  for (let i = 0; i < Math.min(d.times.length, a.times.length); i++)
    if (
      d.black[i] !== a.black[i] ||
      d.frozen[i] !== a.frozen[i] ||
      (d.blurred[i] !== a.blurred[i] && Math.abs(d.sharpness![i]! - 0.5) > 0.05)
    )
      flags++;
  const scenes = d.scenes.length === a.scenes.length && d.scenes.every((x, i) => Math.abs(x - a.scenes[i]!) <= 0.126);
  const f = (x: number) => x.toFixed(2);
  return `${f(info.durationSec)} s: dense ${f(denseSec)} s (${f(info.durationSec / denseSec)}x), auto ${f(autoSec)} s (${f(info.durationSec / autoSec)}x, ${auto.decoding.mode}, ${Math.round(auto.decoding.decodedShare * 100)} % of packets decoded); scene changes ${scenes ? 'the same' : 'DIFFER'} (${d.scenes.length}), ${flags} samples with other black/frozen/blurred flags`;
}
