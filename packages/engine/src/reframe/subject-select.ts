/**
 * Which subject a shot's crop keeps (pure). The boxes of the track's samples are linked into
 * subjects over time (nearest box of similar place and size), each subject scored by its salience
 * (moving ones count half as much again). The best one is required; the next one too when both
 * fit in the crop together. Still regions near the edges count a little less (`centrePrior`),
 * and those lying along the picture's border much less (`boundaryPrior`). When the two do not fit:
 * the larger (its area weighed by the boundary prior) or the moving one is kept, and two alike
 * ones (neither larger nor moving more) fall back to letterbox.
 */
import { GRID_H, GRID_W } from './saliency.js';
import type { SubjectBox, SubjectSample } from './types.js';

export interface LinkedSubject {
  /** Boxes by sample time. */
  boxes: Map<number, SubjectBox>;
  score: number;
  meanArea: number;
  movingShare: number;
}

/** How far (fraction of the picture) a box may move between linked samples, per second. */
const LINK_SPEED = 0.6;
/** A subject unseen for longer than this ends. */
const LINK_GAP_SEC = 0.75;

/** Subjects over the samples (in time order), best first. */
export function linkSubjects(samples: SubjectSample[]): LinkedSubject[] {
  type Open = { boxes: Map<number, SubjectBox>; last: SubjectBox; lastT: number; first: SubjectBox; firstT: number; mass: number };
  const all: Open[] = [];
  const near = (a: SubjectBox, b: SubjectBox, dt: number) => {
    const reach = LINK_SPEED * dt + 0.5 * Math.max(a.w, b.w);
    const d = Math.hypot(cx(a) - cx(b), cy(a) - cy(b));
    return d <= reach ? d : Infinity;
  };
  for (const s of samples) {
    // The strongest subjects so far pick first (a passing fragment does not take the main subject's box).
    const open = all.filter((o) => s.t - o.lastT <= LINK_GAP_SEC && s.t > o.lastT).sort((a, b) => b.mass - a.mass);
    const free = new Set(s.boxes);
    for (const o of open) {
      let best: SubjectBox | undefined;
      let bestD = Infinity;
      for (const b of free) {
        const d = near(b, o.last, s.t - o.lastT);
        if (d < bestD) [bestD, best] = [d, b];
      }
      if (!best) continue;
      free.delete(best);
      o.boxes.set(s.t, best);
      o.last = best;
      o.lastT = s.t;
      o.mass += best.weight;
    }
    for (const b of free) all.push({ boxes: new Map([[s.t, b]]), last: b, lastT: s.t, first: b, firstT: s.t, mass: b.weight });
  }
  // A subject that ends where another starts (within the gap, nearby) is the same one.
  all.sort((a, b) => a.firstT - b.firstT);
  for (let i = 0; i < all.length; i++) {
    const a = all[i]!;
    for (;;) {
      const j = all.findIndex(
        (b, k) => k > i && b.firstT > a.lastT && b.firstT - a.lastT <= LINK_GAP_SEC && near(b.first, a.last, b.firstT - a.lastT) < Infinity,
      );
      if (j < 0) break;
      const b = all.splice(j, 1)[0]!;
      for (const [t, x] of b.boxes) a.boxes.set(t, x);
      [a.last, a.lastT, a.mass] = [b.last, b.lastT, a.mass + b.mass];
    }
  }
  return all
    .map((o) => {
      const bs = [...o.boxes.values()];
      return {
        boxes: o.boxes,
        score: bs.reduce((a, b) => a + b.weight * (b.moving ? 1.5 : 1) * centrePrior(b) * boundaryPrior(b), 0),
        // A region the boundary prior takes for background does not win on size either.
        meanArea: bs.reduce((a, b) => a + b.w * b.h * boundaryPrior(b), 0) / bs.length,
        movingShare: bs.filter((b) => b.moving).length / bs.length,
      };
    })
    .sort((a, b) => b.score - a.score);
}

const cx = (b: SubjectBox) => b.x + b.w / 2;
const cy = (b: SubjectBox) => b.y + b.h / 2;
/**
 * A mild centre prior on a still region (people frame what matters nearer the middle; a dark
 * window at the edge of a white wall is not the subject): 1 at the centre, 0.5 in the corners.
 * A moving region needs none.
 */
const centrePrior = (b: SubjectBox) => (b.moving ? 1 : 1 - (cx(b) - 0.5) ** 2 - (cy(b) - 0.5) ** 2);

/** A box side within this of the picture's edge lies on it. */
const ON_EDGE = 0.01;

/**
 * The boundary prior of Zhu, Liang, Wei and Sun (CVPR 2014, "Saliency optimization from robust
 * background detection"): a region that touches the picture's border along much of its own size is
 * far more likely background (a window at the edge of a wall, a road marking running out of the
 * picture) than a subject, which photographers keep inside the frame. Its boundary connectivity,
 * the length it lies along the border over the square root of its area (in saliency grid cells),
 * gives a weight exp(-c^2 / 2) (the paper's sigma of 1): 1 inside the picture, about 0.14 for a box
 * a quarter of the picture wide filling a corner. A moving region needs none (a car enters from the
 * edge).
 */
export function boundaryPrior(b: SubjectBox): number {
  if (b.moving) return 1;
  const [w, h] = [b.w * GRID_W, b.h * GRID_H]; // in saliency grid cells
  const along =
    (b.x <= ON_EDGE ? h : 0) + (b.x + b.w >= 1 - ON_EDGE ? h : 0) + (b.y <= ON_EDGE ? w : 0) + (b.y + b.h >= 1 - ON_EDGE ? w : 0);
  const c = along / Math.sqrt(Math.max(1e-6, w * h));
  return Math.exp(-(c * c) / 2);
}

export type Choice =
  { kind: 'none' } | { kind: 'follow'; subjects: LinkedSubject[]; reason?: string } | { kind: 'letterbox'; reason: string };

/** Below this share of the samples a subject is passing noise. */
const MIN_PRESENCE = 0.3;
/** A second subject this salient (against the first) matters. */
const SECOND_SHARE = 0.4;
/** Two subjects alike: neither is this much larger nor moves that much more often. */
const LARGER = 1.3;
const MORE_MOVING = 0.3;

/**
 * The subjects the crop must keep, given the crop's width as a fraction of the picture's along the
 * free axis (`fits(a, b)` says whether two boxes fit in the crop together).
 */
export function chooseSubjects(samples: SubjectSample[], fits: (a: SubjectBox, b: SubjectBox) => boolean): Choice {
  const n = samples.length;
  if (!n) return { kind: 'none' };
  const subjects = linkSubjects(samples).filter((s) => s.boxes.size >= Math.max(1, MIN_PRESENCE * n));
  const first = subjects[0];
  if (!first) return { kind: 'none' };
  const second = subjects.slice(1).find((s) => s.score >= SECOND_SHARE * first.score);
  if (!second) return { kind: 'follow', subjects: [first] };
  const both = [...first.boxes.keys()].filter((t) => second.boxes.has(t));
  const together = both.filter((t) => fits(first.boxes.get(t)!, second.boxes.get(t)!)).length;
  if (!both.length || together >= 0.9 * both.length) return { kind: 'follow', subjects: [first, second] };
  const [a, b] = [first, second];
  if (a.meanArea >= LARGER * b.meanArea || b.meanArea >= LARGER * a.meanArea) {
    const big = a.meanArea >= b.meanArea ? a : b;
    return { kind: 'follow', subjects: [big], reason: 'two subjects too far apart for the crop: keeping the larger one' };
  }
  if (Math.abs(a.movingShare - b.movingShare) >= MORE_MOVING) {
    const mover = a.movingShare > b.movingShare ? a : b;
    return { kind: 'follow', subjects: [mover], reason: 'two subjects too far apart for the crop: keeping the moving one' };
  }
  return { kind: 'letterbox', reason: 'two subjects of equal weight too far apart for the crop: letterboxed' };
}
