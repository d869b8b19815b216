/**
 * The smooth camera path along one axis (pure). On a uniform grid of times, the crop's corner x_i
 * minimises
 *
 *   sum_i c (x_i - d_i)^2                 a weak pull towards centring the subject,
 * + sum_i P dist(x_i, [lo_i, hi_i])^2     a strong one to keep the subject inside the crop,
 * + l1 sum |x_{i+1} - x_i|                stay still where possible,
 * + l2 sum |x_{i+1} - 2 x_i + x_{i-1}|    otherwise move at a steady speed (bounded acceleration),
 *
 * the L1 terms (as in Grundmann et al., "Auto-directed video stabilization with robust L1
 * optimal camera paths", the method AutoFlip's path follows) giving paths made of still and
 * constant-speed pieces. Solved by iteratively reweighted least squares: each round is a
 * pentadiagonal system, factored by a banded Cholesky decomposition.
 */

export interface AxisProblem {
  /** Desired positions (the subject centred), one per grid time. */
  desired: number[];
  /** Allowed range per grid time (the subject inside the crop); lo > hi means "as close as possible to desired". */
  lo: number[];
  hi: number[];
  /** The corner's own limits (0 .. source size - crop size). */
  min: number;
  max: number;
}

export interface SolverWeights {
  centre: number;
  inside: number;
  still: number;
  steady: number;
}

export const DEFAULT_WEIGHTS: SolverWeights = { centre: 0.02, inside: 1000, still: 1, steady: 6 };

const EPS = 0.3;
const ROUNDS = 30;

/** Solves A x = b for a symmetric positive definite matrix with half-bandwidth 2, stored as diagonals. */
export function solvePentadiagonal(d0: Float64Array, d1: Float64Array, d2: Float64Array, b: Float64Array): Float64Array {
  const n = d0.length;
  // Banded Cholesky: L with diagonals l0, l1, l2 (L L^T = A).
  const l0 = new Float64Array(n),
    l1 = new Float64Array(n),
    l2 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i >= 2) l2[i] = d2[i - 2]! / l0[i - 2]!;
    if (i >= 1) l1[i] = (d1[i - 1]! - (i >= 2 ? l2[i]! * l1[i - 1]! : 0)) / l0[i - 1]!;
    const s = d0[i]! - l1[i]! * l1[i]! - l2[i]! * l2[i]!;
    l0[i] = Math.sqrt(Math.max(s, 1e-12));
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = (b[i]! - (i >= 1 ? l1[i]! * y[i - 1]! : 0) - (i >= 2 ? l2[i]! * y[i - 2]! : 0)) / l0[i]!;
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--)
    x[i] = (y[i]! - (i + 1 < n ? l1[i + 1]! * x[i + 1]! : 0) - (i + 2 < n ? l2[i + 2]! * x[i + 2]! : 0)) / l0[i]!;
  return x;
}

const clamp = (x: number, a: number, b: number) => Math.min(b, Math.max(a, x));

/** The path (one position per grid time), inside [min, max]. */
export function solveAxis(p: AxisProblem, w: SolverWeights = DEFAULT_WEIGHTS): number[] {
  const n = p.desired.length;
  if (n === 0) return [];
  const target = p.desired.map((d, i) => (p.lo[i]! > p.hi[i]! ? d : clamp(d, p.lo[i]!, p.hi[i]!)));
  if (n === 1) return [clamp(target[0]!, p.min, p.max)];
  let x: Float64Array = Float64Array.from(target, (v) => clamp(v, p.min, p.max));
  for (let round = 0; round < ROUNDS; round++) {
    const d0 = new Float64Array(n),
      d1 = new Float64Array(n),
      d2 = new Float64Array(n),
      b = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      d0[i]! += w.centre;
      b[i]! += w.centre * p.desired[i]!;
      // The inside term, on the side the current path is on (an active set that follows the rounds).
      const lo = p.lo[i]!,
        hi = p.hi[i]!;
      const bound = lo > hi ? target[i]! : x[i]! < lo ? lo : x[i]! > hi ? hi : undefined;
      if (bound !== undefined) {
        d0[i]! += w.inside;
        b[i]! += w.inside * bound;
      }
    }
    // |x_{i+1} - x_i| ~ (x_{i+1} - x_i)^2 / |previous difference|.
    for (let i = 0; i + 1 < n; i++) {
      const k = w.still / (Math.abs(x[i + 1]! - x[i]!) + EPS);
      d0[i]! += k;
      d0[i + 1]! += k;
      d1[i]! -= k;
    }
    for (let i = 1; i + 1 < n; i++) {
      const k = w.steady / (Math.abs(x[i + 1]! - 2 * x[i]! + x[i - 1]!) + EPS);
      // (x_{i-1} - 2 x_i + x_{i+1})^2: the outer product of (1, -2, 1).
      d0[i - 1]! += k;
      d0[i]! += 4 * k;
      d0[i + 1]! += k;
      d1[i - 1]! -= 2 * k;
      d1[i]! -= 2 * k;
      d2[i - 1]! += k;
    }
    const next = solvePentadiagonal(d0, d1, d2, b);
    let change = 0;
    for (let i = 0; i < n; i++) {
      next[i] = clamp(next[i]!, p.min, p.max);
      change = Math.max(change, Math.abs(next[i]! - x[i]!));
    }
    x = next;
    if (change < 0.01 && round > 4) break;
  }
  return [...x];
}

/**
 * Keys that reproduce `xs` (at `ts`) within `tol` by linear interpolation (Ramer-Douglas-Peucker):
 * a still path keeps its two ends, a steady pan its two ends.
 */
export function simplifyPath(ts: number[], xs: number[], tol = 0.5): number[] {
  const keep = new Set<number>([0, ts.length - 1]);
  const walk = (a: number, b: number) => {
    let worst = -1,
      err = tol;
    for (let i = a + 1; i < b; i++) {
      const f = (ts[i]! - ts[a]!) / (ts[b]! - ts[a]!);
      const e = Math.abs(xs[i]! - (xs[a]! + f * (xs[b]! - xs[a]!)));
      if (e > err) [err, worst] = [e, i];
    }
    if (worst < 0) return;
    keep.add(worst);
    walk(a, worst);
    walk(worst, b);
  };
  if (ts.length > 2) walk(0, ts.length - 1);
  return [...keep].sort((a, b) => a - b);
}
