/**
 * Saliency maps of one small grey analysis frame (pure, no I/O):
 *
 * - Centre-surround contrast (as in Itti, Koch and Niebur's model): brightness and detail that
 *   differ from their surroundings (a textured figure on a smooth ground, a plain one on a busy
 *   ground). The spectral residual of Hou and Zhang was tried beside it and dropped: on textured
 *   grounds it lit up the texture's blobs and it cost as much as this whole map.
 * - Motion with the camera's own motion taken out: the global shift between this frame and the
 *   previous one (what most of the picture agrees on: a vote of blocks, see globalShift, on 40x22
 *   then 160x90 copies), then for each cell how far its value lies outside the range of the
 *   previous frame's 3x3 neighbourhood at the shifted place (zero for a sub-pixel shift of a
 *   smooth background, so a pan leaves only what moves against it).
 *
 * Both maps are on the same grid (GRID_W x GRID_H cells over the whole picture).
 */

/** The saliency grid: cells over the whole picture (16:9 analysis frames give square-ish cells). */
export const GRID_W = 64;
export const GRID_H = 32;

/** Block-mean downscale of a w x h grey frame to dw x dh (each target cell averages its source box). */
export function downscale(src: Uint8Array | Float32Array, w: number, h: number, dw: number, dh: number): Float32Array {
  if (dw * 2 === w && dh * 2 === h) return halve(src, w, h);
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const y0 = Math.floor((y * h) / dh);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * h) / dh));
    for (let x = 0; x < dw; x++) {
      const x0 = Math.floor((x * w) / dw);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * w) / dw));
      let s = 0;
      for (let yy = y0; yy < y1; yy++) {
        const row = yy * w;
        for (let xx = x0; xx < x1; xx++) s += src[row + xx]!;
      }
      out[y * dw + x] = s / ((y1 - y0) * (x1 - x0));
    }
  }
  return out;
}

/**
 * The quarter-size copy (w >> 2 by h >> 2) that globalShift and isCut search on. A caller that
 * compares each frame with the one before can make it once per frame and pass it to both.
 */
export function quarter(src: Float32Array, w: number, h: number): Float32Array {
  return downscale(src, w, h, w >> 2, h >> 2);
}

/** Half size by 2x2 means (the common case, kept fast). */
function halve(src: Uint8Array | Float32Array, w: number, h: number): Float32Array {
  const dw = w >> 1,
    dh = h >> 1;
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const r0 = 2 * y * w,
      r1 = r0 + w,
      o = y * dw;
    for (let x = 0; x < dw; x++) {
      const i = 2 * x;
      out[o + x] = (src[r0 + i]! + src[r0 + i + 1]! + src[r1 + i]! + src[r1 + i + 1]!) / 4;
    }
  }
  return out;
}

/** Box blur of radius r (the window shrinks at the edges), `passes` times: close to a Gaussian. Running sums. */
export function blur(src: Float32Array, w: number, h: number, r: number, passes = 2): Float32Array {
  const a = Float32Array.from(src);
  const b = new Float32Array(a.length);
  const line = (from: Float32Array, to: Float32Array, start: number, stride: number, n: number) => {
    let sum = 0;
    let lo = 0,
      hi = -1;
    for (let i = 0; i < n; i++) {
      while (hi < Math.min(n - 1, i + r)) sum += from[start + ++hi * stride]!;
      while (lo < i - r) sum -= from[start + lo++ * stride]!;
      to[start + i * stride] = sum / (hi - lo + 1);
    }
  };
  for (let p = 0; p < passes; p++) {
    for (let y = 0; y < h; y++) line(a, b, y * w, 1, w);
    for (let x = 0; x < w; x++) line(b, a, x, w, h);
  }
  return a;
}

/** Scales a map so that its maximum is 1 (a map of zeros stays zero). */
export function normalise(m: Float32Array, floor = 0): Float32Array {
  let max = floor;
  for (const v of m) if (v > max) max = v;
  if (max <= 0) return m;
  for (let i = 0; i < m.length; i++) m[i] = m[i]! / max;
  return m;
}

/**
 * Where `prev` shifted by (dx, dy) overlaps `cur`, inside an eighth's margin of each edge:
 * columns x0..x1 and rows y0..y1 of `cur` (exclusive ends; empty when x1 <= x0 or y1 <= y0).
 */
function overlap(w: number, h: number, dx: number, dy: number): { x0: number; x1: number; y0: number; y1: number } {
  const mx = Math.ceil(w / 8),
    my = Math.ceil(h / 8);
  return { x0: Math.max(mx, -dx + mx), x1: Math.min(w - mx, w - dx - mx), y0: Math.max(my, -dy + my), y1: Math.min(h - my, h - dy - my) };
}

/** Mean absolute difference of `cur` and `prev` shifted by (dx, dy), over the overlap (inner part only). */
function meanCost(cur: Float32Array, prev: Float32Array, w: number, h: number, dx: number, dy: number): number {
  const { x0, x1, y0, y1 } = overlap(w, h, dx, dy);
  let s = 0,
    n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      s += Math.abs(cur[y * w + x]! - prev[(y + dy) * w + x + dx]!);
      n++;
    }
  return n ? s / n : Infinity;
}

/** The coarse shifts (by meanCost) that the blocks vote between, besides no shift at all. */
const SHORTLIST = 4;
/** Blocks across and down that vote for the camera's shift. */
const COST_BLOCKS = 6;
const N_BLOCKS = COST_BLOCKS * COST_BLOCKS;
/**
 * A block votes only when its best candidate matches clearly better than its second: by this share
 * of the second's difference. A plain block (sky, a white wall) under noise matches every shift
 * about as well, and tells nothing.
 */
const VOTE_MARGIN = 0.2;
let colBlock = new Uint8Array(0);

/**
 * The mean absolute difference of `cur` and `prev` shifted by (dx, dy) in each of COST_BLOCKS x
 * COST_BLOCKS blocks of the overlap (inner part only, every `step`-th pixel), into `out` (NaN for a
 * block with no pixel).
 */
function blockCosts(
  cur: Float32Array,
  prev: Float32Array,
  w: number,
  h: number,
  dx: number,
  dy: number,
  step: number,
  out: Float64Array,
): void {
  out.fill(NaN);
  const { x0, x1, y0, y1 } = overlap(w, h, dx, dy);
  if (x1 <= x0 || y1 <= y0) return;
  if (colBlock.length < w) colBlock = new Uint8Array(w);
  const sums = new Float64Array(N_BLOCKS);
  const counts = new Uint32Array(N_BLOCKS);
  // Each sampled column's and row's block (the overlap cut into COST_BLOCKS equal parts each way).
  const bw = (x1 - x0) / COST_BLOCKS,
    bh = (y1 - y0) / COST_BLOCKS;
  for (let x = x0; x < x1; x += step) colBlock[x] = Math.min(COST_BLOCKS - 1, Math.floor((x - x0) / bw));
  for (let y = y0; y < y1; y += step) {
    const row = Math.min(COST_BLOCKS - 1, Math.floor((y - y0) / bh)) * COST_BLOCKS;
    const c = y * w,
      p = (y + dy) * w + dx;
    for (let x = x0; x < x1; x += step) {
      const k = row + colBlock[x]!;
      sums[k] = sums[k]! + Math.abs(cur[c + x]! - prev[p + x]!);
      counts[k] = counts[k]! + 1;
    }
  }
  for (let k = 0; k < N_BLOCKS; k++) if (counts[k]) out[k] = sums[k]! / counts[k]!;
}

/**
 * The global shift (dx, dy) in pixels of `w` x `h` frames such that cur(x, y) ~ prev(x + dx, y + dy):
 * the camera's own motion, which is what most of the picture that shows any motion agrees on.
 *
 * On a quarter-size copy every shift is ranked by the whole overlap's mean difference; the
 * SHORTLIST best and no shift at all are then put to a vote of COST_BLOCKS x COST_BLOCKS blocks:
 * each block votes for the candidate it matches best, if clearly (VOTE_MARGIN), and the most votes
 * win (ties, and a picture where no block votes, go to no shift: a static camera stays static). A
 * large subject moving over a plain but grainy ground (a car on asphalt) wins the mean but not the
 * vote; plain blocks (a sky the camera pans over) abstain, so the few textured ones decide. At full
 * size the shift is refined two pixels each way by the mean difference of the blocks that voted
 * for it (all blocks if none did).
 */
export function globalShift(
  cur: Float32Array,
  prev: Float32Array,
  w: number,
  h: number,
  range = 24,
  quarters?: { cur: Float32Array; prev: Float32Array },
): [number, number] {
  const qw = w >> 2,
    qh = h >> 2;
  const qc = quarters?.cur ?? quarter(cur, w, h);
  const qp = quarters?.prev ?? quarter(prev, w, h);
  const qr = Math.ceil(range / 4);
  const scored: Array<{ cost: number; dx: number; dy: number }> = [];
  for (let dy = -Math.ceil(qr / 2); dy <= Math.ceil(qr / 2); dy++)
    for (let dx = -qr; dx <= qr; dx++) if (dx || dy) scored.push({ cost: meanCost(qc, qp, qw, qh, dx, dy), dx, dy });
  scored.sort((a, b) => a.cost - b.cost);
  const candidates = [{ dx: 0, dy: 0 }, ...scored.slice(0, SHORTLIST)];
  const costs = candidates.map(({ dx, dy }) => {
    const out = new Float64Array(N_BLOCKS);
    blockCosts(qc, qp, qw, qh, dx, dy, 1, out);
    return out;
  });
  const votes = new Array<number>(candidates.length).fill(0);
  const voter = new Int8Array(N_BLOCKS).fill(-1);
  for (let k = 0; k < N_BLOCKS; k++) {
    let best = -1,
      second = Infinity;
    for (let i = 0; i < candidates.length; i++) {
      const c = costs[i]![k]!;
      if (Number.isNaN(c)) continue;
      if (best < 0 || c < costs[best]![k]!) {
        if (best >= 0) second = costs[best]![k]!;
        best = i;
      } else if (c < second) second = c;
    }
    if (best < 0 || !Number.isFinite(second) || second - costs[best]![k]! <= VOTE_MARGIN * second) continue;
    votes[best]!++;
    voter[k] = best;
  }
  let win = 0;
  for (let i = 1; i < candidates.length; i++) if (votes[i]! > votes[win]!) win = i;
  const support = Array.from(voter, (v) => v === win);
  if (!support.some(Boolean)) support.fill(true);
  const cost = new Float64Array(N_BLOCKS);
  const supported = (dx: number, dy: number) => {
    blockCosts(cur, prev, w, h, dx, dy, 3, cost);
    let s = 0,
      n = 0;
    for (let k = 0; k < N_BLOCKS; k++)
      if (support[k] && !Number.isNaN(cost[k]!)) {
        s += cost[k]!;
        n++;
      }
    return n ? s / n : Infinity;
  };
  const [cx, cy] = [candidates[win]!.dx * 4, candidates[win]!.dy * 4];
  let [fx, fy] = [cx, cy];
  let fine = supported(fx, fy);
  for (let dy = -2; dy <= 2; dy++)
    for (let dx = -2; dx <= 2; dx++) {
      const c = supported(cx + dx, cy + dy);
      if (c < fine - 1e-6) [fine, fx, fy] = [c, cx + dx, cy + dy];
    }
  return [fx, fy];
}

/**
 * Where `cur` moves against the background once the shift (dx, dy) is taken out: per pixel, how
 * far its value lies outside the min..max of the previous frame's 3x3 neighbourhood at the
 * shifted place; pixels whose shifted place is outside the previous frame count as still.
 * Returned on the GRID_W x GRID_H grid (cell means), in grey levels.
 */
export function motionResidual(cur: Float32Array, prev: Float32Array, w: number, h: number, dx: number, dy: number): Float32Array {
  // The previous frame's 3x3 minimum and maximum, separably (rows, then columns).
  const rowLo = new Float32Array(w * h),
    rowHi = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const r = y * w;
    for (let x = 1; x < w - 1; x++) {
      const i = r + x;
      const a = prev[i - 1]!,
        b = prev[i]!,
        c = prev[i + 1]!;
      const ab = a < b;
      rowLo[i] = ab ? (a < c ? a : c) : b < c ? b : c;
      rowHi[i] = ab ? (b > c ? b : c) : a > c ? a : c;
    }
  }
  const res = new Float32Array(w * h);
  // Rows and columns whose shifted place is inside the previous frame's inner part.
  const yLo = Math.max(1, 1 - dy),
    yHi = Math.min(h - 1, h - 1 - dy);
  const xLo = Math.max(1, 1 - dx),
    xHi = Math.min(w - 1, w - 1 - dx);
  for (let y = yLo; y < yHi; y++) {
    const r = y * w,
      pr = (y + dy) * w + dx;
    for (let x = xLo; x < xHi; x++) {
      const j = pr + x;
      let lo = rowLo[j - w]!,
        hi = rowHi[j - w]!;
      const l1 = rowLo[j]!,
        l2 = rowLo[j + w]!,
        h1 = rowHi[j]!,
        h2 = rowHi[j + w]!;
      if (l1 < lo) lo = l1;
      if (l2 < lo) lo = l2;
      if (h1 > hi) hi = h1;
      if (h2 > hi) hi = h2;
      const v = cur[r + x]!;
      res[r + x] = v > hi ? v - hi : v < lo ? lo - v : 0;
    }
  }
  return downscale(res, w, h, GRID_W, GRID_H);
}

/**
 * Centre-surround contrast on the GRID_W x GRID_H grid (Itti-style, two cues from the grey frame):
 * brightness that differs from its surroundings, and detail (absolute Laplacian) that differs
 * from the detail around it (a textured figure on a smooth ground, or a plain one on busy
 * ground). Each cue is scaled by its own maximum, then the two are averaged. `mid` is w x h.
 */
const LUMA_SHARE = 0.3;

export function contrastSaliency(mid: Float32Array, w: number, h: number): Float32Array {
  const lap = new Float32Array(w * h);
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      lap[i] = Math.abs(4 * mid[i]! - mid[i - 1]! - mid[i + 1]! - mid[i - w]! - mid[i + w]!);
    }
  const grey = downscale(mid, w, h, GRID_W, GRID_H);
  const detail = downscale(lap, w, h, GRID_W, GRID_H);
  const cue = (m: Float32Array) => {
    const near = blur(m, GRID_W, GRID_H, 1, 2);
    const far = blur(m, GRID_W, GRID_H, 8, 2);
    const out = new Float32Array(m.length);
    for (let i = 0; i < m.length; i++) out[i] = Math.abs(near[i]! - far[i]!);
    return normalise(out);
  };
  const a = cue(grey);
  const b = cue(detail);
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = LUMA_SHARE * a[i]! + (1 - LUMA_SHARE) * b[i]!;
  return out;
}

/** A cell differs between two frames by more than this (grey levels) ... */
const CUT_LEVEL = 14;
/** ... and a cut is where more than this share of the cells differ, however the picture is shifted a little. */
const CUT_SHARE = 0.5;
/** The shifts isCut tries (up to two cells across, one down), smallest first. */
const CUT_SHIFTS = [-1, 0, 1]
  .flatMap((dy) => [-2, -1, 0, 1, 2].map((dx) => [dx, dy] as const))
  .sort((p, q) => Math.abs(p[0]) + Math.abs(p[1]) - (Math.abs(q[0]) + Math.abs(q[1])));

/**
 * Whether two frames decoded one after the other (w x h) belong to different shots: on
 * quarter-size copies, most cells still differ at the best shift of up to two cells (a pan or a
 * moving subject leaves most of the picture alike). Catches the cuts a histogram misses (two shots
 * of the same colours); a fade or dissolve changes too little from one frame to the next.
 */
export function isCut(
  cur: Float32Array,
  prev: Float32Array,
  w: number,
  h: number,
  quarters?: { cur: Float32Array; prev: Float32Array },
): boolean {
  const qw = w >> 2,
    qh = h >> 2;
  const a = quarters?.cur ?? quarter(cur, w, h);
  const b = quarters?.prev ?? quarter(prev, w, h);
  // A cut when even the best of these shifts leaves most of the picture different; the first shift
  // that does not (no shift at all, most often) settles it.
  for (const [dx, dy] of CUT_SHIFTS) {
    let differ = 0,
      n = 0;
    for (let y = 1; y < qh - 1; y++)
      for (let x = 2; x < qw - 2; x++) {
        if (Math.abs(a[y * qw + x]! - b[(y + dy) * qw + x + dx]!) > CUT_LEVEL) differ++;
        n++;
      }
    if (differ / n <= CUT_SHARE) return false;
  }
  return true;
}
