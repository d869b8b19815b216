/**
 * A segment's framing as ffmpeg filters (issue 43), part of the one place filters are built
 * (render-args.ts `segmentFilters`, used by the single pass and by every chunk of a long reel).
 *
 * A crop path becomes one `crop` whose x and y are expressions of the segment's frame number `n`
 * (frames at the output rate, from 0 at the segment's in point): the keys' corner positions,
 * linear between keys, held before the first and after the last, exactly as the plan says
 * (reframe/types.ts). The crop comes before the scale, so only the kept pixels are scaled.
 * Each segment has its own input and its own `n`, so a chunk boundary (always between segments)
 * cannot shift a path: no seam. https://ffmpeg.org/ffmpeg-filters.html#crop
 *
 * Letterbox, a whole picture (a clip of the output's shape is never cropped) and a segment
 * without a framing (plans from before framing) keep the filters of render-args `frameFilter`.
 */
import type { FramingName } from '@reelsmith/proto';
import type { Segment } from './plan.js';
import type { PlanFraming } from './plan-framing.js';

const num = (x: number) => String(Math.round(x * 1e6) / 1e6);
const even = (x: number) => Math.max(2, 2 * Math.round(x / 2));

/** Scale (and pad or crop) a displayed WxH picture into the output frame: letterbox, or fill with a centred crop. */
export function frameFilter(
  display: { width: number; height: number },
  out: { width: number; height: number },
  letterbox: boolean,
): string {
  const sx = out.width / display.width;
  const sy = out.height / display.height;
  if (letterbox) {
    // Fit inside, bars on the sides or top and bottom.
    const s = Math.min(sx, sy);
    const w = Math.min(out.width, even(display.width * s));
    const h = Math.min(out.height, even(display.height * s));
    return `scale=${w}:${h}:flags=bicubic,setsar=1,pad=${out.width}:${out.height}:${(out.width - w) / 2}:${(out.height - h) / 2}:color=black`;
  }
  // Fill: cover the frame and crop the overflow, centred.
  const s = Math.max(sx, sy);
  const w = Math.max(out.width, even(display.width * s));
  const h = Math.max(out.height, even(display.height * s));
  return `scale=${w}:${h}:flags=bicubic,setsar=1,crop=${out.width}:${out.height}`;
}

type Display = { width: number; height: number; sar?: number };
type Frame = { width: number; height: number };

/** A value at frame `n`: keys (frame, value) in increasing frame order. */
interface FrameKey {
  n: number;
  v: number;
}

/**
 * A piecewise-linear function of `n` as an ffmpeg expression: the first key's value plus, per
 * piece, its slope times the frames of the piece already passed (`clip`). Keys at the same frame
 * make a step. The pieces are summed as a balanced tree of parentheses: ffmpeg's expression parser
 * refuses a flat sum of about 100 terms or more (its nesting guard, libavutil/eval.c), which a path
 * of 8 keys a second reaches in a 12 s segment; a tree's depth grows with the logarithm instead.
 */
export function pathExpression(keys: readonly FrameKey[]): string {
  if (!keys.length) return '0';
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const terms: string[] = [];
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1]!;
    const b = keys[i]!;
    const dv = b.v - a.v;
    if (Math.abs(dv) < 1e-3) continue;
    const dn = b.n - a.n;
    const since = a.n < 0 ? `n+${num(round(-a.n))}` : `n-${num(round(a.n))}`;
    const term =
      dn <= 1e-6 ? `${num(round(Math.abs(dv)))}*gte(n,${num(round(b.n))})` : `${num(Math.abs(dv) / dn)}*clip(${since},0,${num(round(dn))})`;
    terms.push(dv < 0 ? `-${term}` : term);
  }
  const sum = (from: number, to: number): string => {
    if (to - from === 1) return terms[from]!;
    const mid = (from + to) >> 1;
    return `(${sum(from, mid)}+${sum(mid, to)})`;
  };
  const first = num(round(keys[0]!.v));
  if (!terms.length) return first;
  const rest = sum(0, terms.length);
  return `${first}${rest.startsWith('-') ? '' : '+'}${rest}`;
}

/** Whether a framing keeps the whole picture (letterbox, or a clip of the output's own shape). */
export const keepsWholePicture = (f: PlanFraming, display: Frame) =>
  f.camera === 'letterbox' || f.mode === 'letterbox' || (f.width >= display.width && f.height >= display.height);

/**
 * The filters that put one segment's picture into the output frame: by its framing when the plan
 * has one, else by the request's framing (`fallback`: letterbox fits with bars, center and
 * subject fill with a centred crop, as before framing existed).
 */
export function framingFilter(seg: Segment, display: Display, out: Frame, fallback: FramingName, fps: number): string {
  const f = seg.framing;
  if (!f) return frameFilter(display, out, fallback === 'letterbox');
  if (keepsWholePicture(f, display)) return frameFilter(display, out, true);
  // Crop sizes are even (4:2:0 chroma) and inside the picture.
  const w = Math.min(display.width, Math.max(2, 2 * Math.round(f.width / 2)));
  const h = Math.min(display.height, Math.max(2, 2 * Math.round(f.height / 2)));
  const keys = f.path.length ? f.path : [{ t: seg.in, x: (display.width - w) / 2, y: (display.height - h) / 2 }];
  const at = (k: { t: number }) => (k.t - seg.in) * fps;
  const x = pathExpression(keys.map((k) => ({ n: at(k), v: Math.max(0, Math.min(display.width - w, k.x)) })));
  const y = pathExpression(keys.map((k) => ({ n: at(k), v: Math.max(0, Math.min(display.height - h, k.y)) })));
  // A picture with non-square pixels is first brought to its displayed size, where the path's
  // pixels are (rare: anamorphic DV and some phone files).
  const sar = display.sar ?? 1;
  const square = Math.abs(sar - 1) > 1e-3 ? `scale=${display.width}:${display.height}:flags=bicubic,setsar=1,` : '';
  const q = (e: string) => (/^[\d.]+$/.test(e) ? e : `'${e}'`);
  return `${square}crop=w=${w}:h=${h}:x=${q(x)}:y=${q(y)},scale=${out.width}:${out.height}:flags=bicubic,setsar=1`;
}
