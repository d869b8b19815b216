/**
 * Renders the corpus songs as a user would bring them: the score through FluidSynth with the
 * General MIDI sound font (sampled instruments, its own reverb and chorus), then ffmpeg adds a
 * room (early echoes), pink noise 40 dB under full scale, an optional fade-out, and encodes MP3
 * at 128 kb/s. The files are cached under $TMPDIR/reelsmith-beat-corpus by a hash of the score
 * and these settings, so only the first run pays for the rendering.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeMidi } from './midi.js';
import type { Song } from './song-kit.js';

export const SOUND_FONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';
const RENDER_VERSION = 1;

export function corpusDir(): string {
  return path.join(os.tmpdir(), 'reelsmith-beat-corpus');
}

/** Whether FluidSynth and the sound font are there (the bench says so and skips the corpus if not). */
export function canRender(): boolean {
  return hasCommand('fluidsynth') && fs.existsSync(SOUND_FONT);
}

/** Whether `command --version` runs on this machine. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The song's MP3 (rendered now, or from the cache), and whether it came from the cache. */
export function renderSong(song: Song, dir = corpusDir()): { file: string; cached: boolean } {
  fs.mkdirSync(dir, { recursive: true });
  const midi = writeMidi(song.midi);
  const hash = crypto
    .createHash('sha256')
    .update(midi)
    .update(JSON.stringify({ RENDER_VERSION, d: song.durationSec, f: song.fadeOutSec ?? 0 }))
    .digest('hex')
    .slice(0, 12);
  const file = path.join(dir, `${song.name}-${hash}.mp3`);
  if (fs.existsSync(file)) return { file, cached: true };
  const mid = `${file}.mid`;
  const wav = `${file}.wav`;
  fs.writeFileSync(mid, midi);
  try {
    execFileSync('fluidsynth', ['-ni', '-q', '-g', '0.7', '-r', '44100', '-F', wav, SOUND_FONT, mid], { stdio: 'ignore' });
    const d = song.durationSec;
    const fade = song.fadeOutSec ? `,afade=t=out:st=${(d - song.fadeOutSec).toFixed(3)}:d=${song.fadeOutSec}` : '';
    const tmp = `${file}.part.mp3`;
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      wav,
      '-f',
      'lavfi',
      '-i',
      `anoisesrc=color=pink:amplitude=0.01:sample_rate=44100:seed=5:duration=${d}`,
      '-filter_complex',
      `[0:a]aformat=channel_layouts=stereo,atrim=0:${d},apad=whole_dur=${d},aecho=0.9:0.8:23|41|67:0.3|0.22|0.15[m];` +
        `[1:a]aformat=channel_layouts=stereo[n];[m][n]amix=inputs=2:duration=first:normalize=0${fade}[out]`,
      '-map',
      '[out]',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '128k',
      tmp,
    ]);
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(mid, { force: true });
    fs.rmSync(wav, { force: true });
  }
  return { file, cached: false };
}
