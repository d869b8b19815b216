import { planEdit, type EditPlan, type Segment } from '../../src/plan';
import { framePlan, framingProblem, needsSubjects, planFramingProblem, type PlanFraming } from '../../src/plan-framing';
import type { MediaInfo } from '../../src/probe';
import { buildRenderArgs } from '../../src/render-args';
import { buildChunkArgs, planBatches } from '../../src/render-batch-args';
import { framingFilter, pathExpression } from '../../src/render-framing';
import { parseSettings } from '../../src/settings';

/** Evaluates one of our crop expressions at frame n (they use only numbers, n, + - *, clip and gte). */
function evalAt(expr: string, n: number): number {
  const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
  const gte = (a: number, b: number) => (a >= b ? 1 : 0);
  expect(expr).toMatch(/^[\d.n+\-*(),clipgte]+$/);
  return new Function('n', 'clip', 'gte', `return ${expr};`)(n, clip, gte) as number;
}

/** The keys' linear interpolation (held outside), the behaviour the expression must have. */
function lerp(keys: Array<{ n: number; v: number }>, n: number): number {
  if (n <= keys[0]!.n) return keys[0]!.v;
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1]!;
    const b = keys[i]!;
    if (n < b.n) return b.n === a.n ? b.v : a.v + ((b.v - a.v) * (n - a.n)) / (b.n - a.n);
  }
  return keys[keys.length - 1]!.v;
}

const info = (w: number, h: number, sar = 1): MediaInfo => ({
  path: `/m/${w}x${h}.mp4`,
  sizeBytes: 1,
  durationSec: 10,
  formatName: 'mov',
  video: { codec: 'h264', width: w, height: h, codedWidth: w, codedHeight: h, rotation: 0, sar, fps: 30, variableFrameRate: false },
  audio: { codec: 'aac', channels: 2, sampleRate: 48000 },
});

const seg = (framing?: Segment['framing']): Segment =>
  ({ clip: 0, in: 2, out: 4, start: 0, end: 2, hold: 0, ...(framing ? { framing } : {}) }) as Segment;
const vertical = { width: 1080, height: 1920 };

describe('crop path expressions', () => {
  it('hold the first key, move linearly between keys and hold the last', () => {
    const keys = [
      { n: 0, v: 100 },
      { n: 15, v: 400 },
      { n: 30, v: 400 },
      { n: 45, v: 250 },
    ];
    const expr = pathExpression(keys);
    for (let n = -3; n <= 60; n++) expect(evalAt(expr, n)).toBeCloseTo(lerp(keys, n), 6);
  });

  it('is a plain number for a still crop, and a step where two keys share a time (a cut)', () => {
    expect(
      pathExpression([
        { n: 0, v: 316 },
        { n: 30, v: 316 },
      ]),
    ).toBe('316');
    const cut = [
      { n: 0, v: 0 },
      { n: 20, v: 0 },
      { n: 20, v: 600 },
      { n: 40, v: 600 },
    ];
    const expr = pathExpression(cut);
    expect(evalAt(expr, 19)).toBe(0);
    expect(evalAt(expr, 20)).toBe(600);
  });

  it('a long path (8 keys a second for 10 minutes, swaying) nests its sum only logarithmically deep', () => {
    const keys = Array.from({ length: 4801 }, (_, i) => ({ n: i * 3.75, v: 219 + 200 * Math.sin(i / 24) }));
    const expr = pathExpression(keys);
    let depth = 0;
    let deepest = 0;
    for (const ch of expr) deepest = Math.max(deepest, (depth += ch === '(' ? 1 : ch === ')' ? -1 : 0));
    // clip() adds one level; ffmpeg refuses a flat sum of about 100 terms.
    expect(deepest).toBeLessThanOrEqual(15);
    for (let n = -3; n <= 18_100; n += 37) expect(evalAt(expr, n)).toBeCloseTo(lerp(keys, n), 2);
  });

  it('keys before the segment start (negative frames) still interpolate', () => {
    const keys = [
      { n: -10, v: 0 },
      { n: 10, v: 200 },
    ];
    const expr = pathExpression(keys);
    expect(expr).toContain('n+10');
    expect(evalAt(expr, 0)).toBeCloseTo(100, 6);
  });
});

describe('a segment framing as filters', () => {
  it('crops the source along the path (source seconds to segment frames), then scales to the output', () => {
    const f = framingFilter(
      seg({
        mode: 'subject',
        camera: 'pan',
        width: 608,
        height: 1080,
        path: [
          { t: 2, x: 0, y: 0 },
          { t: 4, x: 1312, y: 0 },
        ],
      }),
      info(1920, 1080).video!,
      vertical,
      'subject',
      30,
    );
    const m = /^crop=w=608:h=1080:x='([^']+)':y=0,scale=1080:1920:flags=bicubic,setsar=1$/.exec(f);
    expect(m).not.toBeNull();
    // 2 s at 30 fps: frame 0 at the left edge, frame 30 half way, frame 60 at the right edge.
    expect(evalAt(m![1]!, 0)).toBe(0);
    expect(evalAt(m![1]!, 30)).toBeCloseTo(656, 3);
    expect(evalAt(m![1]!, 60)).toBeCloseTo(1312, 3);
  });

  it('never crops a whole picture (a clip of the output shape) and letterboxes a letterbox framing', () => {
    const whole = framingFilter(
      seg({ mode: 'subject', camera: 'stationary', width: 1080, height: 1920, path: [{ t: 2, x: 0, y: 0 }] }),
      info(1080, 1920).video!,
      vertical,
      'subject',
      30,
    );
    expect(whole).not.toContain('crop');
    const bars = framingFilter(
      seg({ mode: 'letterbox', camera: 'letterbox', width: 1920, height: 1080, path: [{ t: 2, x: 0, y: 0 }] }),
      info(1920, 1080).video!,
      vertical,
      'subject',
      30,
    );
    expect(bars).toBe('scale=1080:608:flags=bicubic,setsar=1,pad=1080:1920:0:656:color=black');
  });

  it('without a framing in the plan: the request framing as before (letterbox fits, center fills)', () => {
    expect(framingFilter(seg(), info(1920, 1080).video!, vertical, 'letterbox', 30)).toMatch(/pad=1080:1920/);
    expect(framingFilter(seg(), info(1920, 1080).video!, vertical, 'center', 30)).toBe(
      'scale=3414:1920:flags=bicubic,setsar=1,crop=1080:1920',
    );
  });

  it('brings non-square pixels to their displayed size before cropping in displayed pixels', () => {
    const f = framingFilter(
      seg({ mode: 'center', camera: 'stationary', width: 480, height: 854, path: [{ t: 2, x: 333, y: 0 }] }),
      info(1146, 854, 4 / 3).video!,
      vertical,
      'center',
      30,
    );
    expect(f).toBe('scale=1146:854:flags=bicubic,setsar=1,crop=w=480:h=854:x=333:y=0,scale=1080:1920:flags=bicubic,setsar=1');
  });
});

describe('framed plans in the render commands', () => {
  const plain = (...durations: number[]): EditPlan =>
    planEdit({ clips: durations.map((d) => ({ durationSec: d })), pacing: 'standard', beatMapping: false, intelligence: false, fps: 30 });

  it('the single pass and a chunk give a segment the same crop (no seam between chunks)', () => {
    const clips = [info(1920, 1080), info(1280, 720)];
    const plan = framePlan(
      plain(10, 10),
      clips.map((c) => c.video),
      '9:16',
      'center',
    );
    const settings = parseSettings({ aspect: '9:16', framing: 'center' });
    const single = buildRenderArgs({ clips, plan, settings, output: '/o/out.mp4' }).args;
    const graph = single[single.indexOf('-filter_complex') + 1]!;
    expect(graph.match(/crop=w=606:h=1080:x=657:y=0/g)?.length).toBe(plan.segments.filter((s) => s.clip === 0).length);
    expect(graph).toContain('crop=w=404:h=720:x=438:y=0');
    const batches = planBatches(plan, clips, { maxSegments: 2 });
    expect(batches.length).toBeGreaterThan(1);
    const chunk = buildChunkArgs({ clips, plan, settings, batch: batches[1]!, totalFrames: 0, video: '/o/c.mp4' }).args;
    const chunkGraph = chunk[chunk.indexOf('-filter_complex') + 1]!;
    const segs = plan.segments.slice(batches[1]!.first, batches[1]!.end);
    segs.forEach((s, i) => {
      const own = graph.split(';\n').find((l) => l.startsWith(`[${batches[1]!.first + i}:v]`))!;
      const inChunk = chunkGraph.split(';\n').find((l) => l.startsWith(`[${i}:v]`))!;
      expect(inChunk.replace(/^\[\d+:v\]/, '').replace(/\[v\d+\]$/, '')).toBe(own.replace(/^\[\d+:v\]/, '').replace(/\[v\d+\]$/, ''));
      expect(inChunk).toContain('crop=w=');
      void s;
    });
  });

  it('16:9 clips in a 16:9 reel render as before, whatever the framing', () => {
    const clips = [info(1920, 1080)];
    for (const framing of ['subject', 'letterbox', 'center'] as const) {
      const plan = framePlan(
        plain(6),
        clips.map((c) => c.video),
        '16:9',
        framing,
      );
      const graph = buildRenderArgs({ clips, plan, settings: parseSettings({ framing }), output: '/o/x.mp4' }).args.find((a) =>
        a.includes('concat='),
      )!;
      expect(graph).toContain('scale=1920:1080:flags=bicubic,setsar=1,pad=1920:1080:0:0:color=black');
      expect(graph).not.toContain('crop');
    }
  });
});

describe('plan framing', () => {
  const plan = planEdit({
    clips: [{ durationSec: 6 }, { durationSec: 6 }],
    pacing: 'standard',
    beatMapping: false,
    intelligence: false,
    fps: 30,
  });
  const sources = [
    { width: 1920, height: 1080 },
    { width: 1080, height: 1920 },
  ];

  it('frames every segment by the request: letterbox whole, centre crop, subject without a track centred; a clip of the output shape never cropped', () => {
    const lb = framePlan(plan, sources, '9:16', 'letterbox');
    expect(lb.segments.every((s) => s.framing?.camera === 'letterbox')).toBe(true);
    const c = framePlan(plan, sources, '9:16', 'center');
    const first = c.segments.find((s) => s.clip === 0)!.framing!;
    expect(first).toMatchObject({ mode: 'center', width: 606, height: 1080, path: [{ x: 657, y: 0 }] });
    const sub = framePlan(plan, sources, '9:16', 'subject');
    expect(sub.segments.find((s) => s.clip === 0)!.framing).toMatchObject({ mode: 'subject', width: 606, path: [{ x: 657 }] });
    const tall = sub.segments.find((s) => s.clip === 1)!.framing!;
    expect([tall.width, tall.height]).toEqual([1080, 1920]);
  });

  it('keeps the framing a plan already has (a previewed plan renders as previewed)', () => {
    const own: PlanFraming = { mode: 'subject', camera: 'stationary', width: 608, height: 1080, path: [{ t: 0, x: 0, y: 0 }] };
    const given = { ...plan, segments: plan.segments.map((s) => ({ ...s, framing: own })) };
    expect(framePlan(given, sources, '9:16', 'center').segments[0]!.framing).toBe(own);
  });

  it('refuses a crop outside the picture, of the wrong shape, or going back in time', () => {
    const ok: PlanFraming = {
      mode: 'subject',
      camera: 'pan',
      width: 608,
      height: 1080,
      path: [
        { t: 0, x: 0, y: 0 },
        { t: 1, x: 1312, y: 0 },
      ],
    };
    expect(framingProblem(ok, sources[0]!, '9:16')).toBeUndefined();
    expect(framingProblem({ ...ok, path: [{ t: 0, x: 1313, y: 0 }] }, sources[0]!, '9:16')).toMatch(/leaves the clip/);
    expect(framingProblem({ ...ok, width: 800 }, sources[0]!, '9:16')).toMatch(/shape/);
    // A tiny picture: even rounding is more than 2 % of its crop, and is still its shape.
    const tiny = { width: 64, height: 40 };
    expect(framingProblem({ ...ok, width: 22, height: 40, path: [{ t: 0, x: 20, y: 0 }] }, tiny, '9:16')).toBeUndefined();
    expect(framingProblem({ ...ok, width: 26, height: 40, path: [{ t: 0, x: 20, y: 0 }] }, tiny, '9:16')).toMatch(/shape/);
    expect(framingProblem({ ...ok, width: 4000 }, sources[0]!, '9:16')).toMatch(/larger/);
    expect(framingProblem({ ...ok, path: [...ok.path].reverse() }, sources[0]!, '9:16')).toMatch(/back in time/);
    const bad = { ...plan, segments: plan.segments.map((s, i) => (i === 1 ? { ...s, framing: { ...ok, width: 4000 } } : s)) };
    expect(planFramingProblem(bad, sources, '9:16')).toMatch(/^segment 1:/);
  });

  it('analyses subjects only where subject framing crops', () => {
    expect(needsSubjects('subject', sources[0], '9:16')).toBe(true);
    expect(needsSubjects('subject', sources[1], '9:16')).toBe(false);
    expect(needsSubjects('center', sources[0], '9:16')).toBe(false);
    expect(needsSubjects('subject', sources[0], '16:9')).toBe(false);
  });
});
