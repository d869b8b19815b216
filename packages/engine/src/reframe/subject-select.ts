/**
 * Which subject a shot's crop keeps (pure). The boxes of the track's samples are linked into
 * subjects over time (nearest box of similar place and size), each subject scored by its salience
 * (moving ones count half as much again). The best one is required; the next one too when both
 * fit in the crop together. When they do not: the larger or the moving one is kept, and two
 * alike ones (neither larger nor moving more) fall back to letterbox.
 */
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

/** Subjects over the samples (in time order). */
export function linkSubjects(samples: SubjectSample[]): LinkedSubject[] {
  type Open = { boxes: Map<number, SubjectBox>; last: SubjectBox; lastT: number };
  const all: Open[] = [];
  const cx = (b: SubjectBox) => b.x + b.w / 2;
  const cy = (b: SubjectBox) => b.y + b.h / 2;
  for (const s of samples) {
    const free = all.filter((o) => s.t - o.lastT <= LINK_GAP_SEC && s.t > o.lastT);
    for (const b of s.boxes) {
      let best: Open | undefined;
      let bestD = Infinity;
      for (const o of free) {
        const reach = LINK_SPEED * (s.t - o.lastT) + 0.5 * Math.max(b.w, o.last.w);
        const d = Math.hypot(cx(b) - cx(o.last), cy(b) - cy(o.last));
        if (d <= reach && d < bestD) [bestD, best] = [d, o];
      }
      if (best) {
        free.splice(free.indexOf(best), 1);
        best.boxes.set(s.t, b);
        best.last = b;
        best.lastT = s.t;
      } else all.push({ boxes: new Map([[s.t, b]]), last: b, lastT: s.t });
    }
  }
  return all
    .map((o) => {
      const bs = [...o.boxes.values()];
      return {
        boxes: o.boxes,
        score: bs.reduce((a, b) => a + b.weight * (b.moving ? 1.5 : 1), 0),
        meanArea: bs.reduce((a, b) => a + b.w * b.h, 0) / bs.length,
        movingShare: bs.filter((b) => b.moving).length / bs.length,
      };
    })
    .sort((a, b) => b.score - a.score);
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
