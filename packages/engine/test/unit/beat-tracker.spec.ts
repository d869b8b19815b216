import { beatAccuracy, beatFMeasure } from '../../src/beat-measures';
import { onsetEnvelope, trackBeats } from '../../src/beat-tracker';
import { beatTracks, type BeatTrack } from '../../src/bench/beat-tracks';
import { planEdit } from '../../src/plan';
import { base } from './plan-fixtures';

describe('trackBeats', () => {
  /** Kick on the beat (louder every bar), hi-hat on the off-beat. */
  function track(seconds: number, bpm: number, sr = 22050): Float32Array {
    const out = new Float32Array(seconds * sr);
    const p = 60 / bpm;
    for (let i = 0; i < out.length; i++) {
      const t = i / sr;
      const beat = t % p;
      const bar = Math.floor(t / p) % 4 === 0 ? 1.6 : 1;
      const off = (t + p / 2) % p;
      out[i] =
        bar * 0.7 * Math.sin(2 * Math.PI * 55 * t) * Math.exp(-25 * beat) + 0.25 * Math.sin(2 * Math.PI * 7000 * t) * Math.exp(-60 * off);
    }
    return out;
  }

  /** Tracks a synthetic song and expects its true beats found (95 % within 50 ms) and no extra ones (F-measure 0.95 at 70 ms). */
  function trackFindsEveryBeat(tr: BeatTrack) {
    const seconds = tr.samples.length / tr.sampleRate;
    const m = trackBeats(onsetEnvelope(tr.samples, tr.sampleRate), seconds);
    expect([tr.name, beatAccuracy(m.beats, tr.beats, 0.05) >= 0.95, beatFMeasure(m.beats, tr.beats, 0.07) >= 0.95]).toEqual([
      tr.name,
      true,
      true,
    ]);
    return { seconds, m };
  }

  it('locks phase and tempo even when the seed tempo is 1% off and the loud hi-hats are off-beat', () => {
    const sr = 22050;
    const samples = track(60, 128, sr);
    const offBeats = Array.from({ length: 100 }, (_, i) => i * (60 / 128) + 60 / 256);
    const m = trackBeats(onsetEnvelope(samples, sr), 60, {
      seedBpm: 128 * 1.01,
      accentAt: (t) => {
        const a = Math.floor(t * sr);
        let e = 0;
        for (let i = a; i < a + 2205 && i < samples.length; i++) e += samples[i]! ** 2;
        return e;
      },
    });
    const reference = Array.from({ length: 128 }, (_, i) => i * (60 / 128));
    expect(Math.abs(m.bpm - 128)).toBeLessThan(0.05);
    expect(beatAccuracy(m.beats, reference, 0.05)).toBeGreaterThanOrEqual(0.98);
    // Not on the hi-hats' off-beats.
    expect(beatAccuracy(m.beats, offBeats, 0.05)).toBeLessThan(0.1);
    // Downbeats on the loud kick: every fourth beat from 0.
    for (const b of m.bars.slice(0, 5)) {
      const r = (b / (60 / 128)) % 4;
      expect(Math.min(r, 4 - r)).toBeLessThan(0.1);
    }
  });

  it('follows a tempo change, a drifting drummer, a break and loud off-beat hats: beats and every plan cut on true beats', () => {
    const wanted = ['tempo step', 'live drummer', 'syncopated', 'break'];
    for (const tr of beatTracks({ seconds: 30, only: wanted })) {
      const { seconds, m } = trackFindsEveryBeat(tr);
      const plan = planEdit(
        base({
          clips: [30, 30, 30].map((d) => ({ durationSec: d })),
          intelligence: false,
          pacing: 'high-energy',
          music: { durationSec: seconds, analysis: m },
        }),
      );
      const off = plan.segments.slice(1).filter((s) => !tr.beats.some((b) => Math.abs(b - s.start) <= 0.04));
      expect([tr.name, off.map((s) => s.start)]).toEqual([tr.name, []]);
    }
  }, 90_000);

  it("finds the drummer's beat where the loudest onsets mislead: chords off the beat, a step to 1.5x the tempo, a fast song", () => {
    // Every true beat found, and no extra ones (the off-beats or the half-time bait).
    for (const tr of beatTracks({ seconds: 30, only: ['one-drop', 'step to 1.5x', 'fast'] })) trackFindsEveryBeat(tr);
  }, 60_000);

  it('returns no beats when there is no tempo at all', () => {
    const m = trackBeats(onsetEnvelope(new Float32Array(22050 * 5), 22050), 5);
    expect(m.beats).toEqual([]);
  });
});
