#!/usr/bin/env node
/* global process, console */
// Scores a model on the validation songs' stored features (seeds 500000-999999, never test seeds):
// beat F-measure, CMLt, downbeat F, meter, the beats' activation (for the confidence bounds), and
// the songs at the beat bench's target (a high-energy plan's cuts >= 95 % within 40 ms of a beat,
// F and CMLt >= 0.9; a rubato song also with cuts >= 85 % at a low confidence).
//   node tools/beat-model/validate.mjs <data dir> [model.onnx] [--lambda=L,...] [--prior=W,...] [--prior-model=file] [--prior-spread=R] [--weak=A,...] [--edge=E,...] [--frame-change=C,...] [--tempo-change=C,...] [--shift=MS,...] [--offsets]
// --lambda: score the engine's decoding and plan with these observation lambdas (beat-dbn.ts's OBS_LAMBDA) instead of its own.
import fs from 'node:fs';
import path from 'node:path';
import { EDGE_BEAT } from '../../packages/engine/dist/beat-dbn.js';
import { FEATURE_FPS } from '../../packages/engine/dist/beat-features.js';
import { beatContinuity, beatFMeasure } from '../../packages/engine/dist/beat-measures.js';
import { TEMPO_PRIOR_WEIGHT, analysisFromActivations, decodeActivations, tempoPriorOf } from '../../packages/engine/dist/beat-learned.js';
import { riseCurves, tempoPriorModel } from '../../packages/engine/dist/beat-tempo-prior.js';
import { WEAK_BEAT, hopIrregularity } from '../../packages/engine/dist/beat-tracker.js';
import { activationsOf, useBeatModel } from '../../packages/engine/dist/beat-model.js';
import { scoreSong } from '../../packages/engine/dist/bench/beats-bench.js';
import { RUBATO_STYLE_NAMES } from '../../packages/engine/dist/bench/corpus/generator.js';
import { readTrainingFeatures } from '../../packages/engine/dist/bench/corpus/training-data.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
/** The value of `--name=...`, or undefined. */
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** The numbers of `--name=A,B,...`, or undefined. */
const numbers = (name) => option(name)?.split(',').map(Number);
const lambdas = numbers('lambda') ?? [undefined];
// --prior=W,W2,...: score the decoding with these weights of the tempo prior (beat-learned.ts's
// TEMPO_PRIOR_WEIGHT) instead of its own; --prior-model=file.json: another tempo prior's weights.
const priors = numbers('prior');
const priorFile = option('prior-model');
if (priorFile && !fs.existsSync(priorFile)) throw new Error(`--prior-model: no file ${priorFile}`);
const priorModel = tempoPriorModel(priorFile);
// --prior-spread=R: the prior's spread (beat-tempo-prior.ts's PRIOR_SPREAD).
const spread = Number(option('prior-spread') ?? NaN) || undefined;
// --weak=A,A2,...: score with these bounds of a weak beat (beat-tracker.ts's WEAK_BEAT, regridWeakBeats).
const weaks = numbers('weak');
// --shift=MS,MS2,...: score the engine's decoding with every beat, bar and onset moved by that many
// milliseconds (a constant timing correction); --offsets: print how far the scored beats lie from
// the true ones they match (within 70 ms), song by song and over all songs, for each setting.
const shifts = numbers('shift');
const offsets = process.argv.includes('--offsets');
// --edge=E,E2,...: score with these bounds of a leading or trailing beat (beat-dbn.ts's EDGE_BEAT).
const edges = numbers('edge');
// --frame-change=C,C2,...: score with these costs of a one-frame change of the beat period
// (beat-dbn.ts's ONE_FRAME_CHANGE); --tempo-change=C,C2,...: with these costs of larger changes
// (beat-dbn.ts's TEMPO_CHANGE).
const frameChanges = numbers('frame-change');
const tempoChanges = numbers('tempo-change');
const sweeps = ['lambda', 'prior', 'weak', 'shift', 'edge', 'frame-change', 'tempo-change'].filter((n) => option(n) !== undefined);
if (sweeps.length > 1) throw new Error(`${sweeps.map((n) => `--${n}`).join(' and ')}: one sweep at a time`);
const dir = args[0];
if (args[1]) useBeatModel(args[1]);
const songs = [];
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  if (meta.seed < 500000 || meta.seed >= 1000000) continue;
  const x = readTrainingFeatures(path.join(dir, f.slice(0, -5)));
  const rises = riseCurves(x.data, x.bands, x.frames);
  const act = { ...(await activationsOf(x.data, x.bands, x.frames)), rises };
  songs.push({ meta, act, durationSec: x.frames / FEATURE_FPS });
}
if (weaks) for (const w of weaks) score(undefined, undefined, w);
else if (priors) for (const w of priors) score(undefined, w);
else if (shifts) for (const ms of shifts) score(undefined, undefined, undefined, ms / 1000);
else if (edges) for (const e of edges) score(undefined, undefined, undefined, 0, e);
else if (frameChanges) for (const c of frameChanges) score(undefined, undefined, undefined, 0, undefined, { oneFrameChange: c });
else if (tempoChanges) for (const c of tempoChanges) score(undefined, undefined, undefined, 0, undefined, { tempoChange: c });
else for (const lambda of lambdas) score(lambda);

/** The decoded beats' signed distances (seconds) to the nearest true beat, for those within 70 ms. */
function beatOffsets(beats, truth) {
  const out = [];
  for (const b of beats) {
    let best = Infinity;
    for (const t of truth) if (Math.abs(b - t) < Math.abs(best)) best = b - t;
    if (Math.abs(best) <= 0.07) out.push(best);
  }
  return out;
}

/** The offsets of each scored song's beats (rows of seed, style and offsets `o`), then over all songs. */
function printOffsets(rows) {
  const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
  const ms = (x) => `${(x * 1000).toFixed(1)}`.padStart(6);
  const all = [];
  for (const { seed, style, o } of rows) {
    all.push(...o);
    const late = o.filter((x) => Math.abs(x) > 0.04).length;
    console.log(
      `${String(seed).padEnd(8)} ${style.padEnd(18)} median ${ms(q(o, 0.5))} ms, 10-90 % ${ms(q(o, 0.1))} ${ms(q(o, 0.9))} ms; beyond 40 ms ${late}/${o.length}`,
    );
  }
  console.log(
    `all songs: median ${ms(q(all, 0.5))} ms, mean ${ms(all.reduce((a, b) => a + b, 0) / all.length)} ms, 10-90 % ${ms(q(all, 0.1))} ${ms(q(all, 0.9))} ms, ${all.length} beats`,
  );
}

/** The analysis with every time moved by `dt` seconds (kept within the song; each beat's strength with its beat). */
function shifted(a, dt, durationSec) {
  if (!dt) return a;
  const inSong = (t) => t >= 0 && t < durationSec;
  const move = (xs) => xs.map((t) => t + dt).filter(inSong);
  const kept = a.beats.map((_, i) => i).filter((i) => inSong(a.beats[i] + dt));
  return {
    ...a,
    beats: kept.map((i) => a.beats[i] + dt),
    ...(a.beatStrength ? { beatStrength: kept.map((i) => a.beatStrength[i]) } : {}),
    bars: move(a.bars),
    onsets: move(a.onsets),
  };
}

function score(lambda, prior = TEMPO_PRIOR_WEIGHT, weak = WEAK_BEAT, dt = 0, edge = EDGE_BEAT, costs = {}) {
  const rows = [];
  for (const { meta, act, durationSec } of songs) {
    const lp = tempoPriorOf(act, prior, priorModel, spread) ?? null; // null: no prior (a weight of 0)
    // The engine's decoding (decodeActivations), at the observation lambda given (beat-dbn.ts's
    // OBS_LAMBDA when none).
    const decoded = decodeActivations(act, lp, weak, edge, lambda, costs);
    const d = dt ? { ...decoded, beats: decoded.beats.map((t) => t + dt) } : decoded;
    const bars = d.beats.filter((_, i) => d.positions[i] === 0);
    const s = [...d.strength].sort((a, b) => a - b);
    // The plan's cuts need an analysis; a song of low confidence cuts on the activation's strong
    // peaks, as in the engine.
    const analysis = shifted(analysisFromActivations(act, durationSec, lp, weak, edge, lambda, costs), dt, durationSec);
    const scored = scoreSong(analysis, { ...meta, rubato: RUBATO_STYLE_NAMES.includes(meta.style) });
    rows.push({
      seed: meta.seed,
      o: offsets ? beatOffsets(d.beats, meta.beats) : [],
      style: meta.style,
      f: beatFMeasure(d.beats, meta.beats),
      c: beatContinuity(d.beats, meta.beats).cmlt,
      down: meta.beatsPerBar >= 3 ? beatFMeasure(bars, meta.downbeats) : NaN,
      meter: d.beatsPerBar === meta.beatsPerBar,
      med: s[s.length >> 1] ?? 0,
      irr: hopIrregularity(d.beats),
      target: scored.ok,
      cuts: scored.cuts,
      confidence: analysis.confidence,
    });
  }
  rows.sort((a, b) => a.style.localeCompare(b.style));
  if ((weaks ?? priors ?? shifts ?? edges ?? frameChanges ?? tempoChanges ?? lambdas).length === 1)
    for (const r of rows)
      console.log(
        `${r.style.padEnd(18)} F ${r.f.toFixed(2)} CMLt ${r.c.toFixed(2)} down ${r.down.toFixed(2)} meter ${r.meter ? 'ok' : 'NO'} median act ${r.med.toFixed(2)} irregularity ${(r.irr * 100).toFixed(1)} %${r.target ? ' at target' : ` MISS (${r.seed}: ${Math.round(r.cuts * 100)} % of cuts, confidence ${r.confidence.toFixed(2)})`}`,
      );
  if (offsets) printOffsets(rows);
  const ok = rows.filter((r) => r.f >= 0.9 && r.c >= 0.9).length;
  const dn = rows.filter((r) => Number.isFinite(r.down));
  const meter = rows.filter((r) => r.meter).length;
  const target = rows.filter((r) => r.target).length;
  console.log(
    `${lambda === undefined ? '' : `lambda ${lambda}: `}${priors ? `prior weight ${prior}: ` : ''}${weaks ? `weak beats under ${weak}: ` : ''}${shifts ? `shifted ${Math.round(dt * 1000)} ms: ` : ''}${edges ? `edge ${edge}: ` : ''}${frameChanges ? `one-frame change ${costs.oneFrameChange}: ` : ''}${tempoChanges ? `tempo change ${costs.tempoChange}: ` : ''}${ok}/${rows.length} songs F and CMLt >= 0.9; mean downbeat F ${(dn.reduce((a, r) => a + r.down, 0) / dn.length).toFixed(2)}; meter right ${meter}/${rows.length}` +
      `; at the bench's target ${target}/${rows.length}`,
  );
}
