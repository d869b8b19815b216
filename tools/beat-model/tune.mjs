#!/usr/bin/env node
/* global process, console */
// Judges two additions to the learned tracker on the validation songs (seeds 500000-500079, never
// test seeds or the held-out sound font), against the learned tracker alone (beat-learned.ts):
// - a downbeat fallback: where the model's mean downbeat activation is under a bound at every
//   position of the bar, meter and downbeats from the beats' accents (loudness after each beat plus
//   its bass onset, folded over 3 and 4 beats, beat-meter.ts), as the rule-based tracker finds them;
// - a tempo guard: the rule-based tracker's analysis where the two tempos are neither equal nor an
//   octave apart (within a tolerance).
// Renders the validation songs' audio (cached in <audio dir>), runs the model, and prints per bound
// the songs at target and the mean downbeat F. (Neither is in the engine: neither helped.)
//   node tools/beat-model/tune.mjs <audio dir> [model.onnx] [count]
import { decodeAudio, rmsAfter } from '../../packages/engine/dist/music-analysis.js';
import { onsetEnvelope } from '../../packages/engine/dist/beat-envelopes.js';
import { peakNear } from '../../packages/engine/dist/beat-hypotheses.js';
import { chooseMeter, relativeToMedian } from '../../packages/engine/dist/beat-meter.js';
import { trackBeats } from '../../packages/engine/dist/beat-tracker.js';
import { beatActivations, useBeatModel } from '../../packages/engine/dist/beat-model.js';
import { analysisFromActivations } from '../../packages/engine/dist/beat-learned.js';
import { SEEDS, TRAIN_FONTS, renderGenerated } from '../../packages/engine/dist/bench/corpus/augment.js';
import { generateSong } from '../../packages/engine/dist/bench/corpus/generator.js';
import { scoreSong } from '../../packages/engine/dist/bench/beats-bench.js';

const [dir, model, count] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 80)];
if (model) useBeatModel(model);
const UNSURE = [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5];
const TOLERANCE = [0, 0.02, 0.04, 0.06, 0.1]; // 0: no guard
/** The analysis with the downbeat fallback at bound `unsure`. */
function withFallback(m, act, samples, env, unsure) {
  const { beats } = m;
  if (beats.length < 12 || unsure === 0) return m;
  const bar = new Set(m.bars);
  // Each beat's position in its bar, counted from the decoded downbeats.
  const positions = [];
  let k = -1;
  for (const b of beats) positions.push((k = bar.has(b) ? 0 : k < 0 ? -1 : k + 1));
  const sum = new Array(m.beatsPerBar).fill(0);
  const n = new Array(m.beatsPerBar).fill(0);
  beats.forEach((b, i) => {
    const p = positions[i];
    if (p < 0 || p >= m.beatsPerBar) return;
    sum[p] += peakNear(act.downbeat, Math.round(b * act.fps), 2);
    n[p]++;
  });
  if (Math.max(...sum.map((x, i) => x / Math.max(1, n[i]))) >= unsure) return m;
  const loud = relativeToMedian(beats.map((b) => rmsAfter(samples, 22050, b, 0.1)));
  const kick = env.bands?.kick;
  const bass = kick ? relativeToMedian(beats.map((b) => peakNear(kick, Math.round(b / env.hopSec) + 1))) : undefined;
  const meter = chooseMeter(loud.map((a, i) => a + (bass?.[i] ?? 0)));
  return { ...m, beatsPerBar: meter.beatsPerBar, bars: beats.filter((_, i) => i % meter.beatsPerBar === meter.phase) };
}

const rows = [];
for (let seed = SEEDS.validation; seed < SEEDS.validation + count; seed++) {
  const song = generateSong(seed);
  // The font make-data.mjs gave this seed.
  const font = TRAIN_FONTS[((seed * 2654435761) >>> 0) % TRAIN_FONTS.length];
  const samples = await decodeAudio(renderGenerated(song, font, dir));
  const dur = song.durationSec;
  const act = await beatActivations(samples);
  const env = onsetEnvelope(samples, 22050);
  const plain = analysisFromActivations(act, dur);
  const byUnsure = UNSURE.map((u) => scoreSong(withFallback(plain, act, samples, env, u), song));
  const rules = trackBeats(env, dur, { accentAt: (t) => rmsAfter(samples, 22050, t, 0.1) });
  const ratio = plain.bpm / rules.bpm;
  const agree = (tol) => tol === 0 || !(rules.bpm > 0) || [1, 2, 0.5].some((r) => Math.abs(ratio / r - 1) <= tol);
  const rulesScore = scoreSong(rules, song);
  const byTol = TOLERANCE.map((tol) => (agree(tol) ? byUnsure[0] : rulesScore));
  rows.push({ seed, style: song.style, byUnsure, byTol });
  const s = byUnsure[0];
  console.log(
    `${seed} ${song.style.padEnd(18)} cuts ${(s.cuts * 100).toFixed(0)}% F ${s.f.toFixed(2)} CMLt ${s.cmlt.toFixed(2)} down ${s.down.toFixed(2)} ${s.ok ? 'ok' : 'MISS'}  tempo ${plain.bpm.toFixed(1)} rules ${rules.bpm.toFixed(1)} true ${song.bpm} rules ${rulesScore.ok ? 'ok' : 'miss'}`,
  );
}
const mean = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
};
console.log('\ndownbeat fallback bound: songs at target, mean downbeat F (meter 3 or 4)');
UNSURE.forEach((u, k) =>
  console.log(
    `  ${u.toFixed(2)}: ${rows.filter((r) => r.byUnsure[k].ok).length}/${rows.length}, ${mean(rows.map((r) => r.byUnsure[k].down)).toFixed(3)}`,
  ),
);
console.log('tempo guard (0 = none): songs at target');
TOLERANCE.forEach((t, k) => console.log(`  ${t.toFixed(2)}: ${rows.filter((r) => r.byTol[k].ok).length}/${rows.length}`));
process.exit(0);
