/**
 * The reframing bench's real-footage table (issue 43): the starter library's clips with their
 * subjects annotated by hand (reframe-real-footage.json, boxes in source pixels at times about a
 * second apart). Per clip, for a 9:16 output, the share of annotated times at which the subject's
 * box is inside the crop, for subject framing (the whole clip as one segment) and for the centre
 * crop: ">= 90 %" counts a box with at least 90 % of its area inside, "wholly" only a box wholly
 * inside (1 px of slack for rounding); where an annotation lists alike subjects that cannot all
 * fit ("any"), one of them inside is enough. Then the analysis time, as in the generated table.
 * The design clips (looked at while the colour cue was designed) and the held-out clips are
 * summed apart. Nothing is asserted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { probe } from '../probe.js';
import { centerFraming, planCropPath, type SegmentFraming } from '../reframe/index.js';
import { analysisCost, cornerAt, costColumns, logTable } from './reframe-bench-tools.js';

type Box = [number, number, number, number];

interface AnnotatedClip {
  file: string;
  set: 'design' | 'held-out';
  subject: string;
  times: Array<{ t: number; need?: 'all' | 'any'; boxes: Box[] }>;
}

/** The annotations sit beside this file's source (dist/bench -> src/bench). */
const ANNOTATIONS = path.resolve(__dirname, '..', '..', 'src', 'bench', 'reframe-real-footage.json');
const STARTER = path.resolve(__dirname, '..', '..', '..', '..', 'media', 'starter');
const OUTPUT = { w: 1080, h: 1920 };

/**
 * How much of box `b` is inside the crop of framing `f` at time `t`: the share of its area, and
 * whether it is wholly inside within 1 px on each axis (an edge on the crop's edge, rounded either way).
 */
function inside(f: SegmentFraming, t: number, b: Box): { share: number; wholly: boolean } {
  const c = f.mode === 'letterbox' ? { x: 0, y: 0 } : cornerAt(f.path, t);
  const ox = Math.max(0, Math.min(b[0] + b[2], c.x + f.width) - Math.max(b[0], c.x));
  const oy = Math.max(0, Math.min(b[1] + b[3], c.y + f.height) - Math.max(b[1], c.y));
  return { share: (ox * oy) / (b[2] * b[3]), wholly: ox >= b[2] - 1 && oy >= b[3] - 1 };
}

/** Shares of the annotated times at which the subject is in the crop: >= 90 % of its area, and wholly. */
function scoreFraming(clip: AnnotatedClip, f: SegmentFraming): { most: number; whole: number } {
  let most = 0,
    whole = 0;
  for (const a of clip.times) {
    const seen = a.boxes.map((b) => inside(f, a.t, b));
    const shares = seen.map((x) => x.share);
    const wholly = seen.map((x) => x.wholly);
    const any = a.need === 'any';
    if (any ? shares.some((s) => s >= 0.9) : shares.every((s) => s >= 0.9)) most++;
    if (any ? wholly.some(Boolean) : wholly.every(Boolean)) whole++;
  }
  const n = Math.max(1, clip.times.length);
  return { most: most / n, whole: whole / n };
}

/** Prints the real-footage table (markdown) through `log`. */
export async function realFootageTable(log: (s: string) => void): Promise<void> {
  const clips = (JSON.parse(fs.readFileSync(ANNOTATIONS, 'utf8')) as { clips: AnnotatedClip[] }).clips;
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const rows: string[][] = [];
  const sums = new Map<string, { n: number; subject: number; subjectWhole: number; centre: number; centreWhole: number }>();
  log(`\nreal footage: ${clips.length} starter clips, subjects annotated by hand (reframe-real-footage.json), output 9:16`);
  for (const clip of clips) {
    const file = path.join(STARTER, clip.file);
    const info = await probe(file, 'clip');
    const source = { w: info.video!.width, h: info.video!.height };
    const dur = info.durationSec;
    const cost = await analysisCost(file, dur);
    const seg = { srcStart: 0, srcEnd: dur };
    const framing = planCropPath(cost.track, seg, source, OUTPUT);
    const s = scoreFraming(clip, framing);
    const c = scoreFraming(clip, centerFraming(seg, source, OUTPUT));
    const n = clip.times.length;
    if (n) {
      const sum = sums.get(clip.set) ?? { n: 0, subject: 0, subjectWhole: 0, centre: 0, centreWhole: 0 };
      sum.n += n;
      sum.subject += s.most * n;
      sum.subjectWhole += s.whole * n;
      sum.centre += c.most * n;
      sum.centreWhole += c.whole * n;
      sums.set(clip.set, sum);
    }
    const xs = framing.path.map((k) => k.x);
    rows.push([
      path.basename(clip.file, '.mp4'),
      clip.set,
      `${source.w}x${source.h}`,
      String(n),
      n ? `${pct(s.most)} / ${pct(s.whole)}` : '-',
      n ? `${pct(c.most)} / ${pct(c.whole)}` : '-',
      `${framing.camera} x ${Math.min(...xs)}-${Math.max(...xs)} (w ${framing.width})`,
      ...costColumns(cost),
      framing.reason ?? '',
    ]);
    log(rows[rows.length - 1]!.join(' | '));
  }
  const head = [
    'clip',
    'set',
    'source',
    'times',
    'subject >= 90 % / wholly',
    'centre >= 90 % / wholly',
    'crop (subject)',
    'analysis ms',
    'subjects ms',
    'added',
    'reason',
  ];
  logTable(log, head, rows);
  for (const [set, x] of sums)
    log(
      `${set} clips, ${x.n} annotated times: subject framing ${pct(x.subject / x.n)} (wholly ${pct(x.subjectWhole / x.n)}), centre crop ${pct(x.centre / x.n)} (wholly ${pct(x.centreWhole / x.n)})`,
    );
}
