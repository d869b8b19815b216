/** Test media made with ffmpeg for the end-to-end and browser specs. */
import { execFileSync } from 'node:child_process';
import { makeTestMedia, TEST_H264 } from '@reelsmith/kit/testing';

/** Runs ffmpeg quietly, overwriting its output. */
export const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args]);

/** 120 BPM: a low thump on every beat and a hi-hat on every off-beat (an ffmpeg aevalsrc expression). */
export const BEAT_120 = '0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.25*sin(2*PI*7000*t)*exp(-60*mod(t+0.25\\,0.5))';

/** Writes `seconds` of the aevalsrc `expression` (44.1 kHz) to `file` as a 128 kb/s MP3. */
export function makeSong(file: string, expression: string, seconds: number): void {
  makeTestMedia(file, [`aevalsrc='${expression}':s=44100:d=${seconds}`], ['-c:a', 'libmp3lame', '-b:a', '128k']);
}

/** Writes a silent H.264 test-pattern clip (ffmpeg's testsrc2) of `size`, `fps` and `seconds`, its hue turned by `hue` degrees. */
export function makeClip(file: string, opts: { size: string; fps: number; seconds: number; hue: number }): void {
  makeTestMedia(file, [`testsrc2=s=${opts.size}:r=${opts.fps}:d=${opts.seconds},hue=h=${opts.hue}`], TEST_H264);
}
