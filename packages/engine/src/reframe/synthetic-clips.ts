/**
 * Generated test clips for reframing (tests and `npm run bench:reframe`): textured subjects of
 * known position over textured backgrounds, made with ffmpeg's lavfi sources, so where the
 * subject is in every frame is known exactly. A clip is a list of shots (hard cuts between them);
 * each shot has a background (coarse blobs and fine grain of a seed, panning at a steady speed or
 * not) and subjects moving along piecewise-linear paths in frame coordinates.
 */
import { execMedia } from '../exec.js';
import { mulberry32 } from '../numeric.js';

export interface SyntheticSubject {
  w: number;
  h: number;
  /** Top edge, pixels. */
  y: number;
  /** Left edge over the shot's time: [t, x] keys (linear between, held after the last). */
  path: Array<[number, number]>;
  color: string;
  seed: number;
}

export interface SyntheticShot {
  dur: number;
  /** Background pan speed, pixels per second (0: still camera). */
  pan: number;
  bgColor: string;
  bgSeed: number;
  subjects: SyntheticSubject[];
}

export interface SyntheticClip {
  name: string;
  width: number;
  height: number;
  fps: number;
  shots: SyntheticShot[];
  /** Which subject the crop should keep in each shot (index into its subjects); 'both' or 'either'. */
  expect: Array<number | 'both'>;
  /** Whether the test tunes on this clip (benches report tuned and held-out clips apart). */
  heldOut: boolean;
}

/** x(t) of a piecewise-linear path. */
export function pathAt(path: Array<[number, number]>, t: number): number {
  if (t <= path[0]![0]) return path[0]![1];
  for (let i = 1; i < path.length; i++) {
    const [t1, x1] = path[i]!;
    const [t0, x0] = path[i - 1]!;
    if (t <= t1) return x0 + ((x1 - x0) * (t - t0)) / (t1 - t0);
  }
  return path[path.length - 1]![1];
}

/** The same path as an ffmpeg expression of `t`. */
export function pathExpr(path: Array<[number, number]>): string {
  let e = String(path[path.length - 1]![1]);
  for (let i = path.length - 1; i >= 1; i--) {
    const [t1, x1] = path[i]!;
    const [t0, x0] = path[i - 1]!;
    e = `if(lt(t\\,${t1})\\,${x0}+(${x1 - x0})*(t-${t0})/${t1 - t0}\\,${e})`;
  }
  return `if(lt(t\\,${path[0]![0]})\\,${path[0]![1]}\\,${e})`;
}

/** Shot start times in the clip (the cuts are all but the first). */
export const shotStarts = (c: SyntheticClip) => c.shots.reduce<number[]>((a, s, i) => [...a, i ? a[i - 1]! + c.shots[i - 1]!.dur : 0], []);

/** Where each subject of the shot at clip time t is (frame pixels), with the shot's index. */
export function subjectsAt(c: SyntheticClip, t: number): { shot: number; boxes: Array<{ x: number; y: number; w: number; h: number }> } {
  const starts = shotStarts(c);
  let k = 0;
  while (k + 1 < starts.length && t >= starts[k + 1]!) k++;
  const local = t - starts[k]!;
  return { shot: k, boxes: c.shots[k]!.subjects.map((s) => ({ x: pathAt(s.path, local), y: s.y, w: s.w, h: s.h })) };
}

/** The ffmpeg arguments that render a clip to `out` (H.264, keyframes every 2 s). */
export function syntheticArgs(c: SyntheticClip, out: string): string[] {
  const inputs: string[] = [];
  const chains: string[] = [];
  c.shots.forEach((s, k) => {
    const bw = c.width + Math.ceil(Math.abs(s.pan) * s.dur) + 8;
    // Coarse blobs (noise on a small picture, scaled up) and fine grain: still texture (the noise
    // filter's pattern does not change between frames without its temporal flag).
    const bg = `color=c=${s.bgColor}:s=${Math.ceil(bw / 40)}x${Math.ceil(c.height / 40)}:r=${c.fps}:d=${s.dur},noise=alls=60:all_seed=${s.bgSeed},scale=${bw}:${c.height}:flags=bicubic,noise=alls=12:all_seed=${s.bgSeed + 1}`;
    inputs.push('-f', 'lavfi', '-i', bg);
    const bgIn = inputs.filter((x) => x === '-i').length - 1;
    const x0 = s.pan >= 0 ? '0' : String(bw - c.width);
    chains.push(`[${bgIn}:v]crop=${c.width}:${c.height}:x='${x0}+${s.pan}*t':y=0,setsar=1[b${k}_0]`);
    s.subjects.forEach((sub, j) => {
      inputs.push(
        '-f',
        'lavfi',
        '-i',
        `color=c=${sub.color}:s=${sub.w}x${sub.h}:r=${c.fps}:d=${s.dur},noise=alls=60:all_seed=${sub.seed},drawgrid=w=${Math.max(8, Math.round(sub.w / 5))}:h=${Math.max(8, Math.round(sub.h / 7))}:t=3:c=white@0.6`,
      );
      const sIn = inputs.filter((x) => x === '-i').length - 1;
      chains.push(`[b${k}_${j}][${sIn}:v]overlay=x='${pathExpr(sub.path)}':y=${sub.y}:eval=frame:shortest=1[b${k}_${j + 1}]`);
    });
    chains.push(`[b${k}_${s.subjects.length}]trim=duration=${s.dur},setpts=PTS-STARTPTS[s${k}]`);
  });
  chains.push(`${c.shots.map((_, k) => `[s${k}]`).join('')}concat=n=${c.shots.length}:v=1:a=0[v]`);
  return [
    '-v',
    'error',
    '-y',
    ...inputs,
    '-filter_complex',
    chains.join(';'),
    '-map',
    '[v]',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-g',
    String(c.fps * 2),
    '-pix_fmt',
    'yuv420p',
    '-threads',
    '1',
    '-filter_complex_threads',
    '1',
    `file:${out}`,
  ];
}

export async function renderSynthetic(c: SyntheticClip, out: string): Promise<void> {
  await execMedia('ffmpeg', syntheticArgs(c, out), { timeoutMs: 300_000 });
}

const COLOURS = ['0xd03020', '0xe0c020', '0x2040d0', '0xf0f0f0', '0x202020', '0xc040c0'];
const GROUNDS = ['0x5a6e50', '0x707070', '0x8a7a5a', '0x4a5a7a', '0x9aa0a8'];

/**
 * The test set: one of each kind per seed (crossing, two subjects, stop-and-go, camera pan, shot
 * cuts, still subject). Variants differ in colours, sizes, speeds and texture; `heldOut` marks the
 * seeds no threshold was tuned on.
 */
export function syntheticSet(seeds: number[], heldOut: (seed: number) => boolean, width = 1280, height = 720, dur = 8): SyntheticClip[] {
  const out: SyntheticClip[] = [];
  for (const seed of seeds) {
    const r = mulberry32(seed * 7919 + 1);
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const size = (a: number, b: number) => 2 * Math.round((a + r() * (b - a)) / 2);
    const bg = () => ({ bgColor: pick(GROUNDS), bgSeed: Math.floor(r() * 1e5) });
    const subj = (w: number, h: number, path: Array<[number, number]>, y?: number): SyntheticSubject => ({
      w,
      h,
      y: y ?? size(height * 0.15, height - h - height * 0.1),
      path,
      color: pick(COLOURS),
      seed: Math.floor(r() * 1e5),
    });
    const base = { width, height, fps: 30, heldOut: heldOut(seed) };
    const sw = size(width * 0.08, width * 0.14);
    const sh = size(height * 0.3, height * 0.5);
    // Crossing the whole width, from just inside one edge to just inside the other.
    const ltr = r() < 0.5;
    const [a, b] = ltr ? [0, width - sw] : [width - sw, 0];
    out.push({
      ...base,
      name: `crossing-${seed}`,
      shots: [
        {
          dur,
          pan: 0,
          ...bg(),
          subjects: [
            subj(sw, sh, [
              [0, a],
              [dur, b],
            ]),
          ],
        },
      ],
      expect: [0],
    });
    // Two subjects far apart, one clearly larger (and that one moves a little).
    const big = subj(
      size(width * 0.12, width * 0.16),
      size(height * 0.45, height * 0.6),
      [
        [0, width * 0.06],
        [dur, width * 0.12],
      ].map(([t, x]) => [t!, Math.round(x!)] as [number, number]),
    );
    const small = subj(size(width * 0.05, width * 0.07), size(height * 0.2, height * 0.3), [[0, Math.round(width * 0.85)]]);
    out.push({
      ...base,
      name: `two-apart-${seed}`,
      shots: [{ dur, pan: 0, ...bg(), subjects: r() < 0.5 ? [big, small] : [small, big] }],
      expect: [],
    });
    const last = out[out.length - 1]!;
    last.expect = [last.shots[0]!.subjects.indexOf(big)];
    // Stops and starts: walks, stands, walks on.
    const x0 = Math.round(width * (0.05 + r() * 0.15));
    const x1 = Math.round(width * (0.4 + r() * 0.15));
    const x2 = Math.round(width * 0.88 - sw);
    out.push({
      ...base,
      name: `stop-go-${seed}`,
      shots: [
        {
          dur,
          pan: 0,
          ...bg(),
          subjects: [
            subj(sw, sh, [
              [0, x0],
              [dur * 0.3, x1],
              [dur * 0.65, x1],
              [dur, x2],
            ]),
          ],
        },
      ],
      expect: [0],
    });
    // The camera pans (the background moves) while the subject drifts across the middle.
    const pan = (r() < 0.5 ? -1 : 1) * Math.round(60 + r() * 80);
    const mid = Math.round(width * (0.3 + r() * 0.3));
    out.push({
      ...base,
      name: `pan-${seed}`,
      shots: [
        {
          dur,
          pan,
          ...bg(),
          subjects: [
            subj(
              sw,
              sh,
              [
                [0, mid - width * 0.12],
                [dur, mid + width * 0.12],
              ].map(([t, x]) => [t!, Math.round(x!)] as [number, number]),
            ),
          ],
        },
      ],
      expect: [0],
    });
    // Shot cuts: three shots, the subject somewhere else in each (still, then moving).
    const third = Math.round((dur / 3) * 10) / 10;
    out.push({
      ...base,
      name: `cuts-${seed}`,
      shots: [
        { dur: third, pan: 0, ...bg(), subjects: [subj(sw, sh, [[0, Math.round(width * 0.1)]])] },
        { dur: third, pan: 0, ...bg(), subjects: [subj(sw, sh, [[0, Math.round(width * 0.8)]])] },
        {
          dur: dur - 2 * third,
          pan: 0,
          ...bg(),
          subjects: [
            subj(sw, sh, [
              [0, Math.round(width * 0.6)],
              [dur - 2 * third, Math.round(width * 0.25)],
            ]),
          ],
        },
      ],
      expect: [0, 0, 0],
    });
    // A still subject off-centre on a still shot: the path must be still.
    out.push({
      ...base,
      name: `still-${seed}`,
      shots: [{ dur, pan: 0, ...bg(), subjects: [subj(sw, sh, [[0, Math.round(width * (r() < 0.5 ? 0.12 : 0.75))]])] }],
      expect: [0],
    });
  }
  return out;
}

/**
 * The crossing clip of the reframing tests: a red box moving at a steady speed from the left edge
 * to the right edge of a still textured grey picture, 30 fps H.264 (a keyframe a second).
 */
export const CROSSING = { width: 640, height: 360, box: { w: 48, h: 72 }, seconds: 4 } as const;

/** The crossing box's left edge at clip time t. */
export const crossingBoxX = (t: number) => ((CROSSING.width - CROSSING.box.w) * t) / CROSSING.seconds;

/** The ffmpeg arguments that write the crossing clip to `out`. */
export function crossingArgs(out: string): string[] {
  const { width: w, height: h, box, seconds } = CROSSING;
  const bg = `color=c=gray:s=${w}x${h}:r=30:d=${seconds},format=yuv420p,geq=lum='128+45*sin(X/5)*cos(Y/7)':cb=128:cr=128`;
  return [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', bg],
    ...['-f', 'lavfi', '-i', `color=c=0xff0000:s=${box.w}x${box.h}:r=30:d=${seconds}`],
    ...['-filter_complex', `[0:v][1:v]overlay=x='(W-w)*t/${seconds}':y=(H-h)/2:shortest=1,format=yuv420p[v]`],
    ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', out],
  ];
}

/**
 * The crop's left edge at source time t along a crop path (linear between keys, held outside), as
 * the render and the preview are to follow it: the tests' own reading of a plan's path.
 */
export function cropLeftAt(keys: ReadonlyArray<{ t: number; x: number }>, t: number): number {
  if (t <= keys[0]!.t) return keys[0]!.x;
  for (let i = 1; i < keys.length; i++)
    if (t < keys[i]!.t) {
      const a = keys[i - 1]!;
      const b = keys[i]!;
      return a.x + ((b.x - a.x) * (t - a.t)) / (b.t - a.t);
    }
  return keys[keys.length - 1]!.x;
}
