/**
 * reelsmith-render: the render engine from the command line.
 *
 *   npx reelsmith-render --clip a.mp4 --clip b.mov [--music song.mp3] [--pacing standard]
 *     [--no-beat-mapping] [--no-intelligence] [--title "Text"] [--title-position center]
 *     [--no-fades] [--framing subject|letterbox|center] [--no-letterbox] [--aspect 16:9|9:16|1:1] [--duration SECONDS]
 *     [--music-start SECONDS] [--plan-only] [--timings] --out reel.mp4
 *
 * --framing: how clips of another shape fill the frame: subject (a crop that follows the subject),
 * letterbox (the whole picture, with bars) or center (centre crop); default subject for 9:16 and
 * 1:1, letterbox for 16:9. --no-letterbox (older) means center when --framing is not given.
 * --duration: the reel's length (5 to 600 s): a whole number of bars nearest it, cut from the best
 * part of the song (absent: the whole song). --music-start: where in the song the reel's music
 * starts (the nearest bar line is used). --timings: how long each stage took, on stderr at the end
 * (start-up, probe, analysis, plan, render, finalize).
 *
 * Exit status: 0 done, 2 bad usage or input (one clear line on stderr), 1 render failure.
 */
import { parseArgs } from 'node:util';
import { ASPECTS as ASPECT_NAMES, FRAMINGS, PACING_PRESETS, TARGET_DURATION_LIMITS, TITLE_POSITIONS } from '@reelsmith/proto';
import { isEngineError } from './errors.js';
import type { SongAnalysis } from './song-sections.js';
import type { ClipAnalysis } from './clip-analysis.js';
import type { EditPlan } from './plan.js';
import type { PlanFraming } from './plan-framing.js';
import type { MediaInfo } from './probe.js';
import { prepare, renderReel, type StageTimings } from './render.js';
import type { RenderSettingsInput } from './settings.js';

const USAGE =
  `usage: reelsmith-render --clip FILE [--clip FILE ...] [--music FILE] [--pacing ${PACING_PRESETS.join('|')}] [--no-beat-mapping] [--no-intelligence] ` +
  `[--title TEXT] [--title-position ${TITLE_POSITIONS.join('|')}] [--no-fades] [--framing ${FRAMINGS.join('|')}] [--no-letterbox] [--aspect ${ASPECT_NAMES.join('|')}] ` +
  '[--duration SECONDS] [--music-start SECONDS] [--plan-only] [--timings] --out FILE';

class UsageError extends Error {}

/** The contract's values, as the usage errors list them: "a, b or c". */
const oneOf = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
const isOneOf = (values: readonly string[], v: string) => values.includes(v);

export function parseCli(argv: string[]): {
  clips: string[];
  music?: string;
  out?: string;
  planOnly: boolean;
  timings: boolean;
  settings: RenderSettingsInput;
  targetSec?: number;
  musicStartSec?: number;
} {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: {
        clip: { type: 'string', multiple: true },
        music: { type: 'string' },
        pacing: { type: 'string' },
        'no-beat-mapping': { type: 'boolean' },
        'no-intelligence': { type: 'boolean' },
        title: { type: 'string' },
        'title-position': { type: 'string' },
        'no-fades': { type: 'boolean' },
        'no-letterbox': { type: 'boolean' },
        framing: { type: 'string' },
        aspect: { type: 'string' },
        duration: { type: 'string' },
        'music-start': { type: 'string' },
        'plan-only': { type: 'boolean' },
        timings: { type: 'boolean' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  if (v.help) throw new UsageError('');
  const clips = v.clip ?? [];
  if (!clips.length) throw new UsageError('at least one --clip is required');
  if (!v['plan-only'] && !v.out) throw new UsageError('--out is required');
  if (v.pacing && !isOneOf(PACING_PRESETS, v.pacing)) throw new UsageError(`--pacing must be ${oneOf(PACING_PRESETS)}, not ${v.pacing}`);
  if (v['title-position'] && !isOneOf(TITLE_POSITIONS, v['title-position']))
    throw new UsageError(`--title-position must be ${oneOf(TITLE_POSITIONS)}`);
  if (v.aspect && !isOneOf(ASPECT_NAMES, v.aspect)) throw new UsageError(`--aspect must be ${oneOf(ASPECT_NAMES)}`);
  if (v.framing !== undefined && !isOneOf(FRAMINGS, v.framing))
    throw new UsageError(`--framing must be ${oneOf(FRAMINGS)}, not ${v.framing}`);
  const seconds = (flag: string, raw: string | undefined, min: number, max: number) => {
    if (raw === undefined) return undefined;
    const x = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(x) || x < min || x > max)
      throw new UsageError(`--${flag} must be a number of seconds from ${min} to ${max}, not ${raw}`);
    return x;
  };
  const targetSec = seconds('duration', v.duration, TARGET_DURATION_LIMITS.min, TARGET_DURATION_LIMITS.max);
  const musicStartSec = seconds('music-start', v['music-start'], 0, 86_400);
  if (musicStartSec !== undefined && !v.music) throw new UsageError('--music-start needs --music');
  const settings: RenderSettingsInput = {
    pacing_preset: v.pacing as RenderSettingsInput['pacing_preset'],
    enable_beat_mapping: !v['no-beat-mapping'],
    enable_intelligence: !v['no-intelligence'],
    enable_fades: !v['no-fades'],
    // --no-letterbox is the older form of --framing center; neither: the aspect's default.
    ...(v['no-letterbox'] ? { enable_letterbox: false } : {}),
    framing: v.framing as RenderSettingsInput['framing'],
    aspect: v.aspect as RenderSettingsInput['aspect'],
    title_config: {
      enabled: v.title !== undefined ? v.title.trim() !== '' : true,
      text: v.title ?? 'My Awesome Video',
      position: (v['title-position'] as 'top' | 'center' | 'bottom' | undefined) ?? 'center',
    },
  };
  return {
    clips,
    music: v.music,
    out: v.out,
    planOnly: Boolean(v['plan-only']),
    timings: Boolean(v.timings),
    settings,
    targetSec,
    musicStartSec,
  };
}

/**
 * What the plan does, for a person: the music's tempo, what the analysis saw in each clip (shot
 * boundaries, shares of black, frozen and blurred samples, how it was decoded), then one line per
 * segment with its place on the reel, the source moment, and (with Intelligence) its score and why
 * it was chosen.
 */
export function planSummary(
  plan: EditPlan,
  clips: MediaInfo[],
  music?: MediaInfo,
  musicAnalysis?: SongAnalysis,
  clipAnalyses: Array<ClipAnalysis | undefined> = [],
): string {
  const f = (x: number) => x.toFixed(2);
  const name = (p: string) => p.split('/').pop()!;
  const lines: string[] = [];
  const nameWidth = Math.min(24, Math.max(4, ...clips.map((c) => name(c.path).length)));
  clips.forEach((c, i) => {
    const a = clipAnalyses[i];
    if (!a) return;
    if (!lines.length) lines.push('clips:');
    const share = (flags: boolean[]) => `${Math.round((flags.filter(Boolean).length / Math.max(1, flags.length)) * 100)} %`;
    const d = a.decoding;
    const how = !d
      ? ''
      : d.mode === 'sparse'
        ? `, sparse decode (${Math.round(d.decodedShare * 100)} % of frames)`
        : `, dense decode (${d.reason})`;
    lines.push(
      `  ${name(c.path).slice(0, nameWidth).padEnd(nameWidth)}  ${f(c.durationSec).padStart(6)} s  ${a.scenes.length} shot boundaries, black ${share(a.black)}, frozen ${share(a.frozen)}, blurred ${share(a.blurred)}${how}`,
    );
  });
  if (music) {
    const m = musicAnalysis;
    if (m && m.beats.length > 1) {
      const local = m.beats.slice(1).map((b, i) => 60 / (b - m.beats[i]!));
      const sorted = [...local].sort((a, b) => a - b);
      const lo = sorted[Math.floor(sorted.length * 0.05)]!;
      const hi = sorted[Math.floor(sorted.length * 0.95)]!;
      lines.push(
        `music: ${name(music.path)}, ${f(music.durationSec)} s, ${m.bpm.toFixed(1)} BPM on average (${lo.toFixed(0)}-${hi.toFixed(0)} locally), ${m.beats.length} beats, ${m.bars.length} bars`,
      );
    } else lines.push(`music: ${name(music.path)}, ${f(music.durationSec)} s${m ? ', no steady beat found' : ''}`);
    if (m?.sections?.length)
      lines.push(
        `sections: ${m.sections.map((s) => `${s.kind} ${s.label} ${f(s.start)}-${f(s.end)} (energy ${s.energy.toFixed(2)})`).join(', ')}`,
      );
    const end = plan.musicStart + plan.totalSec;
    lines.push(
      `window: ${f(plan.musicStart)}-${f(end)} s of the song${plan.clampedToSong ? ' (the target is longer than the song: the whole song)' : ''}` +
        `${plan.musicStart > 0 ? ', fade-in 0.03 s' : ''}${plan.musicFadeOutSec ? `, fade-out over the last beat (${f(plan.musicFadeOutSec)} s)` : ''}`,
    );
  }
  lines.push(
    `reel: ${f(plan.totalSec)} s, ${plan.segments.length} segments at ${plan.fps} fps, cuts ${plan.beatAligned ? 'on beats' : 'at fixed lengths'}`,
  );
  const width = nameWidth;
  lines.push(`  #  reel time       ${'clip'.padEnd(width)}  source          score  why`);
  plan.segments.forEach((s, i) => {
    const clip = name(clips[s.clip]?.path ?? String(s.clip))
      .slice(0, width)
      .padEnd(width);
    const why = s.why ? `${s.score!.toFixed(3)}  ${s.why.reason}` : '   -   ';
    lines.push(
      `${String(i + 1).padStart(3)}  ${f(s.start).padStart(6)}-${f(s.end).padEnd(6)}  ${clip}  ${f(s.in).padStart(6)}-${f(s.out).padEnd(6)}  ${why}${s.hold ? ` (last frame held ${f(s.hold)} s)` : ''}${s.framing ? `  [${framingWords(s.framing)}]` : ''}`,
    );
  });
  return `${lines.join('\n')}\n`;
}

/** A segment's framing in a few words: the mode, the camera and where the crop goes. */
export function framingWords(fr: PlanFraming): string {
  if (fr.camera === 'letterbox') return `letterbox${fr.reason ? `: ${fr.reason}` : ''}`;
  const first = fr.path[0];
  const last = fr.path[fr.path.length - 1];
  const at = (k?: { x: number; y: number }) => (k ? `${Math.round(k.x)},${Math.round(k.y)}` : '-');
  const move = fr.path.length > 1 ? `${at(first)} -> ${at(last)}` : `at ${at(first)}`;
  return `${fr.mode} ${fr.camera} ${fr.width}x${fr.height} ${move}${fr.reason ? `: ${fr.reason}` : ''}`;
}

/**
 * One line of where the time went: `startSec` (the process's start-up: Node and the modules, up to
 * the command's first step), then each stage in the order it ran, and the total.
 */
export function timingsLine(startSec: number, t: StageTimings, totalSec: number): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const parts = [`start-up ${s(startSec * 1000)}`];
  if (t.probe !== undefined) parts.push(`probe ${s(t.probe)}`);
  if (t.analysis !== undefined) {
    const inner = [
      t.clipAnalysis !== undefined ? `clips ${s(t.clipAnalysis)}` : '',
      t.musicAnalysis !== undefined ? `music ${s(t.musicAnalysis)}` : '',
    ].filter(Boolean);
    parts.push(`analysis ${s(t.analysis)}${inner.length ? ` (${inner.join(', ')}, side by side)` : ''}`);
  }
  for (const k of ['plan', 'render', 'finalize'] as const) if (t[k] !== undefined) parts.push(`${k} ${s(t[k])}`);
  return `timings: ${parts.join(', ')}; total ${totalSec.toFixed(2)} s\n`;
}

function progressBar(p: number, stage: string): string {
  const width = 30;
  const filled = Math.round((p / 100) * width);
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(p).padStart(3)}% ${stage.padEnd(11)}`;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let opts;
  try {
    opts = parseCli(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message ? `reelsmith-render: ${(e as Error).message}\n` : ''}${USAGE}\n`);
    return 2;
  }
  // Seconds since the process started: Node's own start-up and loading the modules.
  const startUp = process.uptime();
  const t0 = Date.now();
  const total = () => startUp + (Date.now() - t0) / 1000;
  try {
    if (opts.planOnly) {
      const p = await prepare({
        clips: opts.clips,
        music: opts.music,
        settings: opts.settings,
        targetSec: opts.targetSec,
        musicStartSec: opts.musicStartSec,
      });
      // The plan as JSON on stdout (for tools); the same plan for a person on stderr.
      process.stdout.write(`${JSON.stringify(p.plan, null, 2)}\n`);
      process.stderr.write(planSummary(p.plan, p.clips, p.music, p.analyses.music, p.analyses.clips));
      if (opts.timings) process.stderr.write(timingsLine(startUp, p.timings, total()));
      return 0;
    }
    const tty = process.stderr.isTTY;
    const started = Date.now();
    const r = await renderReel({
      clips: opts.clips,
      music: opts.music,
      settings: opts.settings,
      targetSec: opts.targetSec,
      musicStartSec: opts.musicStartSec,
      output: opts.out!,
      onProgress: (p, stage) => {
        if (tty) process.stderr.write(progressBar(p, stage));
      },
    });
    if (tty) process.stderr.write('\n');
    process.stdout.write(planSummary(r.plan, r.clips, r.music, r.analyses?.music, r.analyses?.clips));
    process.stdout.write(
      `${r.output} (${r.durationSec.toFixed(2)} s, ${r.plan.segments.length} segments) rendered in ${((Date.now() - started) / 1000).toFixed(1)} s; thumbnail ${r.thumbnail}\n`,
    );
    if (opts.timings) process.stderr.write(timingsLine(startUp, r.timings, total()));
    return 0;
  } catch (e) {
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (isEngineError(e)) {
      process.stderr.write(`reelsmith-render: ${e.message}\n`);
      return e.code === 'RENDER_FAILED' || e.code === 'TIMEOUT' ? 1 : 2;
    }
    process.stderr.write(`reelsmith-render: ${(e as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) void main().then((code) => process.exit(code));
