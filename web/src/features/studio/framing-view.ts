/**
 * The plan's framing as the browser shows it (issue 43): the same crop, letterbox or centre crop
 * the render makes, drawn by placing the source video inside the reel's frame. The crop path is
 * the plan's (source pixels, linear between keys, held outside them), so the instant preview and
 * the file show the same picture. Pure, tested alone.
 */
import type { PlanSegment } from '../../api/types';

type SegmentFraming = NonNullable<PlanSegment['framing']>;

/** The crop's corner at source time `t`: linear between the path's keys, held before the first and after the last. */
export function cornerAt(path: SegmentFraming['path'], t: number): { x: number; y: number } {
  if (!path.length) return { x: 0, y: 0 };
  if (t <= path[0]!.t) return { x: path[0]!.x, y: path[0]!.y };
  for (let i = 1; i < path.length; i++) {
    const b = path[i]!;
    if (t < b.t) {
      const a = path[i - 1]!;
      const f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1;
      return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
    }
  }
  const last = path[path.length - 1]!;
  return { x: last.x, y: last.y };
}

/** How the source video sits in the frame: `fit` (letterbox, whole picture) or `crop` (a box of the source, in fractions). */
export type FrameView = { kind: 'fit' } | { kind: 'crop'; x: number; y: number; w: number; h: number };

/**
 * The view of a segment at source time `t` of a source `size` (its picture as displayed): its
 * framing's crop; letterbox, or a crop that is the whole picture, fits. A plan without framings
 * (made before them) shows the request's framing the old way: letterbox fits, others fill with a
 * centred crop (`frameAspect` is the reel's width over height).
 */
export function frameView(
  framing: SegmentFraming | undefined,
  fallback: string | undefined,
  size: { w: number; h: number },
  frameAspect: number,
  t: number,
): FrameView {
  if (!size.w || !size.h) return { kind: 'fit' };
  if (!framing) {
    if (fallback === 'letterbox') return { kind: 'fit' };
    const src = size.w / size.h;
    const w = src > frameAspect ? frameAspect / src : 1;
    const h = src > frameAspect ? 1 : src / frameAspect;
    return { kind: 'crop', x: (1 - w) / 2, y: (1 - h) / 2, w, h };
  }
  if (framing.camera === 'letterbox' || framing.mode === 'letterbox' || (framing.width >= size.w && framing.height >= size.h))
    return { kind: 'fit' };
  const c = cornerAt(framing.path, t);
  const w = Math.min(1, framing.width / size.w);
  const h = Math.min(1, framing.height / size.h);
  return { kind: 'crop', x: Math.max(0, Math.min(1 - w, c.x / size.w)), y: Math.max(0, Math.min(1 - h, c.y / size.h)), w, h };
}

/** CSS for the video element inside the frame (`position: absolute`), for a view. */
export function viewStyle(v: FrameView): Record<'left' | 'top' | 'width' | 'height' | 'objectFit', string> {
  if (v.kind === 'fit') return { left: '0', top: '0', width: '100%', height: '100%', objectFit: 'contain' };
  const pct = (x: number) => `${Math.round(x * 1e4) / 1e2}%`;
  return { left: pct(-v.x / v.w), top: pct(-v.y / v.h), width: pct(1 / v.w), height: pct(1 / v.h), objectFit: 'fill' };
}
