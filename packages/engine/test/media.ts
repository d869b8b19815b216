/**
 * Test media made with ffmpeg's generators, so each property is exact and known.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTestMedia, TEST_H264 as H264 } from '@reelsmith/kit/testing';

export { H264, makeTestMedia };

const ff = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });

export interface Corpus {
  dir: string;
  landscape: string; // 1280x720 30 fps, stereo tone, 6 s
  portrait: string; // 720x1280 30 fps, no audio, 5 s
  rotated: string; // stored 640x480 with rotate=90: displays 480x640, top half white
  anamorphic: string; // 720x576 SAR 16:15 (displays 768x576), mono audio, 4 s
  silent: string; // 960x540 25 fps, no audio, 4 s
  blackFrozen: string; // 8 s: 0-2 moving, 2-4 black, 4-6 frozen, 6-8 moving
  music: string; // exact 120 BPM, 12 s, MP3
}

export function makeCorpus(dir: string): Corpus {
  fs.mkdirSync(dir, { recursive: true });
  const p = (n: string) => path.join(dir, n);
  const gen = (file: string, sources: string[], args: string[]) => makeTestMedia(p(file), sources, args);
  gen(
    'landscape.mp4',
    ['testsrc2=size=1280x720:rate=30:duration=6', 'sine=frequency=440:sample_rate=48000:duration=6'],
    ['-ac', '2', ...H264, '-c:a', 'aac', '-shortest'],
  );
  gen('portrait.mp4', ['testsrc=size=720x1280:rate=30:duration=5'], H264);
  // Displayed picture: 480x640, white top half, black bottom half, with a moving bar so it is not frozen.
  // Stored rotated 90 degrees counter-clockwise; a display matrix turns it back. ffmpeg 5.1 writes
  // the matrix from a rotate tag only when copying streams, hence two steps.
  gen(
    'rotated-raw.mp4',
    [
      "color=white:size=480x320:rate=30:duration=5[top];color=black:size=480x320:rate=30:duration=5[bottom];[top][bottom]vstack,drawbox=x='mod(t*100,400)':y=300:w=40:h=40:color=gray:t=fill",
    ],
    ['-vf', 'transpose=2', ...H264],
  );
  ff(['-i', p('rotated-raw.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=270', p('rotated.mp4')]);
  fs.rmSync(p('rotated-raw.mp4'));
  gen(
    'anamorphic.mp4',
    ['testsrc2=size=720x576:rate=25:duration=4', 'sine=frequency=330:duration=4'],
    ['-vf', 'setsar=16/15', '-ac', '1', ...H264, '-c:a', 'aac', '-shortest'],
  );
  gen('silent.mp4', ['smptebars=size=960x540:rate=25:duration=4'], H264);
  // 0-2 s moving, 2-4 s black, 4-6 s one frame repeated (frozen), 6-8 s moving.
  gen(
    'black-frozen.mp4',
    ['testsrc2=size=640x360:rate=30:duration=8'],
    [
      '-vf',
      "drawbox=enable='between(t,2,4)':x=0:y=0:w=iw:h=ih:color=black:t=fill,setpts='if(between(T,4,6),4/TB,PTS)',fps=30",
      ...H264,
      '-t',
      '8',
    ],
  );
  gen(
    'music.mp3',
    [
      "aevalsrc='(1+0.6*lt(mod(t\\,2)\\,0.5))*0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.25*sin(2*PI*7000*t+3*sin(2*PI*3100*t))*exp(-60*mod(t+0.25\\,0.5))':s=44100:d=12",
    ],
    ['-c:a', 'libmp3lame', '-b:a', '160k'],
  );
  return {
    dir,
    landscape: p('landscape.mp4'),
    portrait: p('portrait.mp4'),
    rotated: p('rotated.mp4'),
    anamorphic: p('anamorphic.mp4'),
    silent: p('silent.mp4'),
    blackFrozen: p('black-frozen.mp4'),
    music: p('music.mp3'),
  };
}

/** A grey 1-byte-per-pixel frame of `file` at time `t`, scaled to w x h. */
export function grayFrame(file: string, t: number, w: number, h: number): Uint8Array {
  const out = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-vf', `scale=${w}:${h},format=gray`, '-f', 'rawvideo', 'pipe:1'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return new Uint8Array(out);
}

/** A still image (JPEG, PNG) as grey 1-byte pixels, scaled to w x h. */
export function grayImage(file: string, w: number, h: number): Uint8Array {
  const out = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    file,
    '-frames:v',
    '1',
    '-vf',
    `scale=${w}:${h},format=gray`,
    '-f',
    'rawvideo',
    'pipe:1',
  ]);
  return new Uint8Array(out);
}

export function regionMean(f: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): number {
  let s = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      s += f[y * w + x]!;
      n++;
    }
  }
  return s / n;
}

export interface Probed {
  duration: number;
  video: { codec: string; width: number; height: number; fps: number; pixFmt: string; duration: number; frames: number };
  audio?: { codec: string; duration: number; sampleRate: number; channels: number };
}

export function ffprobe(file: string): Probed {
  const j = JSON.parse(
    execFileSync('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-show_entries',
      'format=duration:stream=codec_type,codec_name,width,height,r_frame_rate,pix_fmt,duration,nb_read_frames,sample_rate,channels',
      '-of',
      'json',
      file,
    ]).toString(),
  ) as { format: { duration: string }; streams: Array<Record<string, string | number>> };
  const v = j.streams.find((s) => s.codec_type === 'video')!;
  const a = j.streams.find((s) => s.codec_type === 'audio');
  const [n, d] = String(v.r_frame_rate).split('/').map(Number);
  return {
    duration: Number(j.format.duration),
    video: {
      codec: String(v.codec_name),
      width: Number(v.width),
      height: Number(v.height),
      fps: n! / d!,
      pixFmt: String(v.pix_fmt),
      duration: Number(v.duration),
      frames: Number(v.nb_read_frames),
    },
    audio: a
      ? { codec: String(a.codec_name), duration: Number(a.duration), sampleRate: Number(a.sample_rate), channels: Number(a.channels) }
      : undefined,
  };
}

/**
 * Seconds of audio a player actually plays: decoded samples / rate. (The AAC stream's own
 * duration includes encoder padding to whole 1024-sample frames.)
 */
export function decodedAudioSeconds(file: string): number {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 's16le', 'pipe:1'], {
    maxBuffer: 512 * 1024 * 1024,
  });
  return out.length / 2 / 48000;
}

/** The x264 preset of the tests' renders: they check what is in the file (length, frames, framing, sound), not its size. */
export const TEST_PRESET = 'ultrafast' as const;
