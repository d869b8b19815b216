/**
 * A reel cut from the best part of a song: songs with a known form (quiet intro, verse, loud
 * chorus, outro; one in 3/4), synthesised so that every beat and bar line is exactly known.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseMusic } from '../../src/music-analysis';
import { planEdit, type EditPlan, type PlanInput } from '../../src/plan';
import { chooseMusicWindow, songSections, type SongAnalysis } from '../../src/song-sections';
import { distance, secondsIn, synthSong, writeSong, type Song } from '../song';

const clips = [{ durationSec: 40 }, { durationSec: 25 }, { durationSec: 60 }];
const plan = (music: { durationSec: number; analysis: SongAnalysis }, targetSec?: number, musicStartSec?: number): EditPlan =>
  planEdit({
    clips,
    music,
    pacing: 'standard',
    beatMapping: true,
    intelligence: false,
    fps: 30,
    targetSec,
    musicStartSec,
  } satisfies PlanInput);

/** What a perfect tracker would find in a synthesised song: the score's own beats and bars at `bpm`. */
const scoreAnalysis = (song: Song, bpm: number, more: Partial<SongAnalysis> = {}): SongAnalysis => ({
  version: 0,
  durationSec: song.durationSec,
  bpm,
  beatPeriodSec: 60 / bpm,
  beats: song.beats,
  bars: song.bars,
  confidence: 1,
  ...more,
});

/** What a listener checks: length, bar lines at both ends, the chorus, cuts on beats. */
function expectMusicalWindow(p: EditPlan, song: Song, targetSec: number) {
  const barSec = song.bars[1]! - song.bars[0]!;
  expect(Math.abs(p.totalSec - targetSec)).toBeLessThanOrEqual(barSec / 2 + 1e-6);
  expect(distance(p.musicStart, song.bars)).toBeLessThanOrEqual(0.07);
  expect(distance(p.musicStart + p.totalSec, song.bars)).toBeLessThanOrEqual(0.07);
  expect(secondsIn(song, 'chorus', p.musicStart, p.musicStart + p.totalSec) / p.totalSec).toBeGreaterThanOrEqual(0.8);
  expect(p.segments.length).toBeGreaterThan(3);
  for (const s of p.segments.slice(1)) expect(distance(p.musicStart + s.start, song.beats)).toBeLessThanOrEqual(0.04);
  expect(p.segments.at(-1)!.end).toBeCloseTo(p.totalSec, 6);
  expect(p.musicFadeOutSec).toBeGreaterThan(0.3);
}

describe('a reel cut from the best part of the song', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-song-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('4/4: a 30 s target plays 30 s of the chorus, from bar line to bar line, cuts on beats (analysed from an MP3)', async () => {
    const song = synthSong({
      bpm: 120,
      beatsPerBar: 4,
      form: [
        ['intro', 8],
        ['verse', 16],
        ['chorus', 16],
        ['verse', 8],
        ['chorus', 16],
        ['outro', 8],
      ],
    });
    const file = writeSong(song, path.join(dir, 'four.mp3'));
    const analysis = await analyseMusic(file, song.durationSec);
    // The stored sections: bar-aligned, and the loud parts are labelled chorus.
    for (const s of analysis.sections.slice(1)) expect(distance(s.start, song.bars)).toBeLessThanOrEqual(0.07);
    const chorusSec = analysis.sections
      .filter((s) => s.kind === 'chorus')
      .reduce((t, s) => t + secondsIn(song, 'chorus', s.start, s.end), 0);
    expect(chorusSec).toBeGreaterThan(0.8 * 64);
    expect(analysis.sections[0]!.kind).toBe('intro');

    const p = plan({ durationSec: song.durationSec, analysis }, 30);
    expectMusicalWindow(p, song, 30);
    expect(p.musicStart).toBeGreaterThan(16); // not the intro
    // 15, 60 s likewise land on whole bars.
    for (const target of [15, 60]) {
      const q = plan({ durationSec: song.durationSec, analysis }, target);
      expect(Math.abs(q.totalSec - target)).toBeLessThanOrEqual(1 + 1e-6);
      expect(distance(q.musicStart, song.bars)).toBeLessThanOrEqual(0.07);
    }
  }, 300_000);

  it('3/4: a 30 s target plays 30 s of the chorus from bar line to bar line, cuts on beats', () => {
    const song = synthSong({
      bpm: 100,
      beatsPerBar: 3,
      form: [
        ['intro', 8],
        ['verse', 16],
        ['chorus', 20],
        ['verse', 8],
        ['chorus', 20],
        ['outro', 8],
      ],
    });
    // The tracker's own 3/4 bars are its business (beat tracking); here the bars are the song's.
    const sections = songSections(song.samples, song.sampleRate, song.bars, song.durationSec);
    const analysis = scoreAnalysis(song, 100, { sections, beatsPerBar: 3 });
    const p = plan({ durationSec: song.durationSec, analysis }, 30);
    expectMusicalWindow(p, song, 30);
  });

  it('a target longer than the song gives the whole song and says it was clamped; none gives the whole song', () => {
    const song = synthSong({
      bpm: 120,
      beatsPerBar: 4,
      form: [
        ['verse', 4],
        ['chorus', 8],
      ],
    });
    const analysis = scoreAnalysis(song, 120);
    const long = plan({ durationSec: song.durationSec, analysis }, 90);
    expect(long).toMatchObject({ musicStart: 0, totalSec: Math.round(song.durationSec * 1e6) / 1e6, clampedToSong: true });
    expect(long.musicFadeOutSec).toBe(0);
    const whole = plan({ durationSec: song.durationSec, analysis });
    expect(whole.clampedToSong).toBe(false);
    expect(whole.totalSec).toBeCloseTo(song.durationSec, 6);
  });

  it("the user's start bar is kept; without music the target sets the length from the clips", () => {
    const song = synthSong({
      bpm: 120,
      beatsPerBar: 4,
      form: [
        ['verse', 8],
        ['chorus', 16],
        ['outro', 8],
      ],
    });
    const analysis = scoreAnalysis(song, 120);
    const w = chooseMusicWindow(analysis, song.durationSec, 15, song.bars[3]!);
    expect(w.start).toBeCloseTo(song.bars[3]!, 6);
    expect(Math.abs(w.end - w.start - 15)).toBeLessThanOrEqual(1 + 1e-6); // 7 or 8 bars of 2 s
    expect(distance(w.end, song.bars)).toBeLessThan(1e-6);
    // Without a target: the rest of the song from that bar.
    expect(chooseMusicWindow(analysis, song.durationSec, undefined, song.bars[3]! + 0.004)).toMatchObject({
      start: song.bars[3],
      end: song.durationSec,
    });
    const p = planEdit({ clips, pacing: 'standard', beatMapping: true, intelligence: false, fps: 30, targetSec: 20 });
    expect(p.totalSec).toBe(20);
    expect(p.musicStart).toBe(0);
    const short = planEdit({
      clips: [{ durationSec: 6 }],
      pacing: 'standard',
      beatMapping: true,
      intelligence: false,
      fps: 30,
      targetSec: 20,
    });
    expect(short.totalSec).toBe(6);
  });
});
