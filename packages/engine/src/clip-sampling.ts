/**
 * Sparse decoding for clip analysis: decode only what the scores need.
 *
 * The analysis looks at a clip 8 times a second (slots at s / 8 s). Decoding every frame of a
 * heavy clip (4K, high-bitrate 1080p, HEVC) is what made analysis slow, and most of those frames
 * only confirm what the frames around them already show. So for a heavy H.264 or HEVC clip whose
 * keyframes come every 0.5-3.2 s, the analysis decodes in up to two passes:
 *
 *  1. A packet index (ffprobe, demuxing only): every video packet's time, size and keyframe flag,
 *     so the GOPs (a keyframe and the frames that depend on it) are known before decoding.
 *  2. Pass 1 decodes a short window after every keyframe: the keyframe and the packets (in decode
 *     order) up to the second slot after it, so each window measures two consecutive slots (a
 *     picture and its motion). Whole GOPs are decoded where the packet sizes after the window say
 *     something may happen there (`packetReason`, against the window's own packets): a quarter
 *     second of packets under a third or over three times the window's level (black, a freeze, a
 *     blur, a fade or another scene compress differently), or a packet as big as a third of the
 *     keyframe and four times that level (a cut the encoder did not mark with a keyframe). This is
 *     also all there is for the end of the clip, which has no next window to compare with.
 *  3. Each gap between two windows is then judged from its two ends (`refineReason`): it is
 *     decoded whole in pass 2 when the ends differ in a way a scene cut, a black or frozen stretch,
 *     a fade or a change of focus would leave: black on one side only, a big brightness change, a
 *     histogram change (a possible cut), stillness on either side that does not span the gap, blur
 *     on one side only, or a gap longer than 3.2 s (a tail longer than that is decoded too).
 *  4. The gaps left are filled from their ends (`fillGaps`): brightness and detail interpolated,
 *     the histogram of the nearer end (so no cut appears inside), the windows' motion (or none when
 *     both ends are still and alike); the tail after the last window carries its picture and motion.
 * The scores are then computed over the full grid of slots exactly as for a dense decode.
 *
 * How a pass decodes only its packets: `ffmpeg -c copy` with the noise bitstream filter's drop
 * expression (counting keyframes and packets since the last one) removes the other packets, and a
 * second ffmpeg decodes what is left from a pipe. Clips with open GOPs (pictures shown before
 * their keyframe, predicted from the GOP before) are decoded densely: window by window their
 * references would be gone. Decoded frames carry their times (the showinfo filter), each checked
 * against the packet index; frame -> slot follows the fps filter of the dense path: slot s shows
 * the last frame whose time rounds to s or earlier.
 *
 * What it cannot see: an event that starts and ends inside one gap and leaves both ends and the
 * packet sizes alike (for example a slight blur for a second in a steady shot). Gaps are at most
 * a GOP minus two slots long.
 * Pure functions; the ffmpeg runs are in clip-analysis.ts.
 */
import { isBlackStats, STILL_MOTION, type FrameStats } from './frame-stats.js';
import { upperMedian } from './numeric.js';

/** Analysis samples per second (the slot grid). */
export const SAMPLE_RATE = 8;
/** Codecs the sparse path is used for (their keyframes and reordering are known to it). */
export const SPARSE_CODECS = ['h264', 'hevc'];
/** Below about 8 s of 1080p30 of pixels, a dense decode takes a quarter of a second: not worth two passes. */
export const MIN_SPARSE_PIXELS = 1920 * 1080 * 30 * 8;
/** GOP lengths (median) the sparse path is used for, seconds. */
export const SPARSE_GOP_SEC = { min: 0.5, max: 3.2 };
/** A gap longer than this is always decoded. */
export const MAX_GAP_SEC = 3.2;

export interface Packet {
  /** Presentation time on the clip's timeline (the container's start time subtracted); NaN if unknown. */
  t: number;
  size: number;
  key: boolean;
}

export interface PacketIndex {
  codec: string;
  width: number;
  height: number;
  fps: number;
  /** Display rotation in degrees clockwise (0, 90, 180, 270), as ffmpeg's autorotate applies it. */
  rotation: number;
  /** Video packets in decode order. */
  packets: Packet[];
}

const field = (line: string, name: string) => {
  const m = new RegExp(`(?:^|\\|)${name}=([^|]*)`).exec(line);
  return m ? m[1]! : undefined;
};
const rate = (s?: string) => {
  const [a, b] = (s ?? '').split('/').map(Number);
  return a && b ? a / b : 0;
};

/**
 * Parses `ffprobe -select_streams V:0 -show_entries packet=pts_time,size,flags:stream=...:format=start_time
 * -of compact=p=1` (see `packetIndexArgs`).
 */
export function parsePacketIndex(text: string): PacketIndex {
  const lines = text.split('\n');
  const start = Number(field(lines.find((l) => l.startsWith('format|')) ?? '', 'start_time'));
  const offset = Number.isFinite(start) ? start : 0;
  const stream = lines.find((l) => l.startsWith('stream|')) ?? '';
  // Side data `rotation=-90` (counter-clockwise) or the old `rotate=90` tag (clockwise).
  const side = Number(field(stream, 'rotation'));
  const tag = Number(field(stream, 'tag:rotate'));
  const cw = Number.isFinite(side) ? -side : Number.isFinite(tag) ? tag : 0;
  const packets: Packet[] = [];
  for (const line of lines) {
    if (!line.startsWith('packet|')) continue;
    const pts = Number(field(line, 'pts_time'));
    packets.push({
      t: Number.isFinite(pts) ? Math.round((pts - offset) * 1e6) / 1e6 : NaN,
      size: Number(field(line, 'size')) || 0,
      key: (field(line, 'flags') ?? '').startsWith('K'),
    });
  }
  return {
    codec: field(stream, 'codec_name') ?? '',
    width: Number(field(stream, 'width')) || 0,
    height: Number(field(stream, 'height')) || 0,
    fps: rate(field(stream, 'avg_frame_rate')) || rate(field(stream, 'r_frame_rate')) || 30,
    rotation: (((Math.round(cw / 90) * 90) % 360) + 360) % 360,
    packets,
  };
}

export interface Gop {
  /** 1-based, as the drop expression counts keyframes. */
  index: number;
  keyTime: number;
  /** Packets of the GOP in decode order, the keyframe first. */
  packets: Packet[];
  /** Where the frames of this GOP end: the next keyframe (or the clip's end). */
  end: number;
}

/** Splits the packets into GOPs (packets before the first keyframe cannot be decoded and are left out). */
export function gopsOf(index: PacketIndex, durationSec: number): Gop[] {
  const gops: Gop[] = [];
  for (const p of index.packets) {
    if (p.key) gops.push({ index: gops.length + 1, keyTime: p.t, packets: [p], end: durationSec });
    else gops.at(-1)?.packets.push(p);
  }
  for (let i = 0; i + 1 < gops.length; i++) gops[i]!.end = gops[i + 1]!.keyTime;
  return gops.filter((g) => Number.isFinite(g.keyTime));
}

const slotOf = (t: number) => Math.round(t * SAMPLE_RATE);

/**
 * Packets (keyframe included, decode order) that a window of GOP `g` keeps so that two slots
 * after the keyframe are measured: every packet shown before the middle of the third slot.
 */
function windowPackets(g: Gop): number {
  const limit = (slotOf(g.keyTime) + 1.5) / SAMPLE_RATE;
  let n = 1;
  g.packets.forEach((p, i) => {
    if (p.t >= g.keyTime && p.t < limit) n = i + 1;
  });
  return n;
}

/** The end of what a window of `n` packets shows: the earliest frame of the GOP it does not decode. */
function windowEnd(g: Gop, n: number): number {
  let end = g.end;
  for (let i = n; i < g.packets.length; i++) {
    const t = g.packets[i]!.t;
    if (t >= g.keyTime && t < end) end = t;
  }
  return end;
}

export interface SparsePlan {
  gops: Gop[];
  /** Packets kept after each keyframe in a window (the keyframe included). */
  windowPackets: number;
  /** GOPs pass 1 decodes whole (their packet sizes say something may happen after their window). */
  full: number[];
  /** Slots of the clip (duration x SAMPLE_RATE). */
  slots: number;
}

/**
 * Open GOPs (pictures after a keyframe in decode order but shown before it, predicted from the
 * GOP before) cannot be decoded window by window: their references are gone, and HEVC decoders
 * then lose the order of their output. Such clips are decoded densely.
 */
export function openGopReason(gops: Gop[]): string | undefined {
  return gops.some((g) => g.packets.some((p) => p.t < g.keyTime)) ? 'open GOPs (leading pictures)' : undefined;
}

/** Why the sparse path is not for a clip, from what its probe says (before a packet is read). */
export function videoReason(v: { codec: string; width: number; height: number; fps: number }, durationSec: number): string | undefined {
  if (!SPARSE_CODECS.includes(v.codec)) return `codec ${v.codec}`;
  if (v.width * v.height * v.fps * durationSec < MIN_SPARSE_PIXELS) return 'light clip';
  return undefined;
}

/** Why the sparse path is not used for this clip, or undefined when it is. */
export function denseReason(index: PacketIndex, durationSec: number, gops: Gop[]): string | undefined {
  const video = videoReason(index, durationSec);
  if (video) return video;
  if (gops.length < 3) return 'fewer than 3 keyframes';
  const open = openGopReason(gops);
  if (open) return open;
  const lengths = gops.slice(0, -1).map((g, i) => gops[i + 1]!.keyTime - g.keyTime);
  const m = upperMedian(lengths);
  if (m < SPARSE_GOP_SEC.min || m > SPARSE_GOP_SEC.max) return `keyframes every ${m.toFixed(2)} s`;
  return undefined;
}

/**
 * What the packet sizes of a GOP beyond its window say about the frames there, against the
 * window's own packets (decoded, so known to be ordinary): the level of a quarter second's packets
 * (their median) under a third or over three times the window's (black, a freeze, a blur, a fade or
 * another scene compress differently), or a packet as big as a third of the keyframe and four times
 * the window's level (a cut the encoder did not mark with a keyframe). Undefined when nothing.
 */
export function packetReason(g: Gop, windowPackets: number, fps: number): string | undefined {
  const win = g.packets.slice(1, windowPackets);
  const beyond = g.packets.slice(windowPackets);
  if (!beyond.length) return undefined;
  if (!win.length) return 'no window';
  const level = Math.max(1, upperMedian(win.map((p) => p.size)));
  const keySize = g.packets[0]!.size;
  if (beyond.some((p) => p.size > keySize / 3 && p.size > 4 * level)) return 'cut-like packet';
  const r = Math.min(beyond.length, Math.max(6, Math.round(fps / 4)));
  for (let i = 0; i + r <= beyond.length; i++) {
    const m = upperMedian(beyond.slice(i, i + r).map((p) => p.size));
    if (m < level / 3 || m > level * 3) return 'packet level change';
  }
  return undefined;
}

/**
 * The first pass of a sparse decode (see the top of the file): every GOP's window, and whole the
 * GOPs whose packet sizes say something may happen after their window (`packetReason`).
 */
export function sparsePlan(gops: Gop[], durationSec: number, fps: number): SparsePlan {
  const n = Math.max(1, ...gops.map(windowPackets));
  const full = gops.filter((g) => packetReason(g, n, fps)).map((g) => g.index);
  return { gops, windowPackets: n, full, slots: Math.max(1, slotOf(durationSec)) };
}

/** Consecutive runs of GOP indices as [first, last] ranges. */
function ranges(indices: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const i of [...indices].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

const inRanges = (v: string, rs: Array<[number, number]>) => (rs.length ? rs.map(([a, b]) => `between(${v},${a},${b})`).join('+') : '0');

/**
 * The noise bitstream filter's drop expression for a pass: GOPs in `full` are kept whole, GOPs in
 * `window` (or every GOP) keep their first `windowPackets` packets, the rest is dropped.
 * Storage: 0 packets since the keyframe, 2 whole GOP, 3 windowed GOP, 4 keyframes so far. Side
 * effects are sequenced with `;` (the operands of + and * may be evaluated in any order), and the
 * value is never negative (a negative value would drop at random).
 */
export function dropExpression(pass: { windowPackets: number; full: number[]; window: number[] | 'all' }): string {
  const full = inRanges('ld(4)', ranges(pass.full));
  const win = pass.window === 'all' ? '1' : inRanges('ld(4)', ranges(pass.window));
  return `if(key,st(4,ld(4)+1);st(0,0);st(2,${full});st(3,${win}),st(0,ld(0)+1));not(ld(2)+ld(3)*lt(ld(0),${pass.windowPackets}))`;
}

/** Slot ranges [from, to) a pass measures: per GOP, whole or its window. */
export function passCoverage(plan: SparsePlan, full: Set<number>, windowed: Set<number> | 'all'): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (const g of plan.gops) {
    const whole = full.has(g.index);
    if (!whole && windowed !== 'all' && !windowed.has(g.index)) continue;
    const from = Math.max(0, slotOf(g.keyTime));
    const to = Math.min(plan.slots, slotOf(whole ? g.end : windowEnd(g, plan.windowPackets)));
    if (to > from) out.set(g.index, [from, to]);
  }
  return out;
}

/** Presentation times of the packets a pass hands to the decoder (its frames must carry these). */
export function passTimes(plan: SparsePlan, full: Set<number>, windowed: Set<number> | 'all'): number[] {
  const out: number[] = [];
  for (const g of plan.gops) {
    if (full.has(g.index)) out.push(...g.packets.map((p) => p.t));
    else if (windowed === 'all' || windowed.has(g.index)) out.push(...g.packets.slice(0, plan.windowPackets).map((p) => p.t));
  }
  return out.sort((a, b) => a - b);
}

/** Which GOP a frame at time t belongs to (the last keyframe at or before it). */
export function gopAt(plan: SparsePlan, t: number): Gop | undefined {
  let lo = 0,
    hi = plan.gops.length - 1,
    found: Gop | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (plan.gops[mid]!.keyTime <= t + 1e-6) {
      found = plan.gops[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** One slot of the grid: measured by a decode, or (later) filled. */
export interface Slot {
  stats: FrameStats;
  /** Motion was measured against the previous slot's frame (false at the start of a run). */
  motionKnown: boolean;
  /** At the start of a run: how the picture differs from the last measured slot before the gap. */
  link?: { mad: number; hist: number };
}

/**
 * Why a gap between measured slots `a` and `b` must be decoded, or undefined when its ends agree
 * well enough to fill it. `refSharp` is the clip's sharp reference (as the scores use it).
 */
export function refineReason(table: Array<Slot | undefined>, a: number, b: number, refSharp: number): string | undefined {
  const left = table[a]!;
  const right = table[b]!;
  const link = right.link;
  if ((b - a) / SAMPLE_RATE > MAX_GAP_SEC) return 'long gap';
  if (!link) return 'no link';
  const L = left.stats;
  const R = right.stats;
  if (isBlackStats(L) !== isBlackStats(R)) return 'black on one side';
  // Brightness is interpolated across a gap (exposure scores follow it piecewise linearly); a big
  // change is a fade or a flash, which may not be linear.
  if (Math.abs(L.mean - R.mean) > 40) return 'brightness change';
  if (link.hist > 0.3) return 'possible cut';
  const leftStill = left.motionKnown ? L.motion < STILL_MOTION : undefined;
  const after = table[b + 1];
  const rightStill = after?.motionKnown ? after.stats.motion < STILL_MOTION : undefined;
  const spansStill = leftStill === true && rightStill === true && link.mad < STILL_MOTION;
  if ((leftStill !== false || rightStill !== false) && !spansStill) return 'stillness';
  if (refSharp > 0 && L.sharp / refSharp < 0.5 !== R.sharp / refSharp < 0.5) return 'blur on one side';
  return undefined;
}

/**
 * Why the slots after the last measured one (the end of the clip, after the last window) must be
 * decoded, or undefined when the last window's picture can be carried to the end: only a long
 * tail is decoded (packet sizes already flagged cuts, black and still pictures in it).
 */
export function tailReason(table: Array<Slot | undefined>): string | undefined {
  let last = table.length - 1;
  while (last >= 0 && !table[last]) last--;
  if (last < 0) return 'nothing measured';
  if ((table.length - 1 - last) / SAMPLE_RATE > MAX_GAP_SEC) return 'long tail';
  return undefined;
}

/** Gaps of the table: [a, b] with a and b measured and every slot between them not. */
export function gapsOf(table: Array<Slot | undefined>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let last = -1;
  for (let i = 0; i < table.length; i++) {
    if (!table[i]) continue;
    if (last >= 0 && i > last + 1) out.push([last, i]);
    last = i;
  }
  return out;
}

/**
 * Fills every unmeasured slot from the measured ones around it (see the top of the file) and
 * returns the complete grid of statistics.
 */
export function fillGaps(table: Array<Slot | undefined>): FrameStats[] {
  const measured = table.flatMap((s, i) => (s ? [i] : []));
  if (!measured.length) return [];
  const out: FrameStats[] = table.map((s) => s?.stats) as FrameStats[];
  // Before the first measured slot: its picture, still. After the last: its picture with its motion.
  const first = measured[0]!;
  const last = measured.at(-1)!;
  for (let i = 0; i < first; i++) out[i] = { ...table[first]!.stats, motion: 0 };
  const lastMotion = table[last]!.motionKnown ? table[last]!.stats.motion : 0;
  for (let i = last + 1; i < table.length; i++) out[i] = { ...table[last]!.stats, motion: lastMotion };
  if (!table[first]!.motionKnown) out[first] = { ...table[first]!.stats, motion: 0 };
  for (const [a, b] of gapsOf(table)) {
    const L = table[a]!;
    const R = table[b]!;
    const after = table[b + 1];
    const mads = [L.motionKnown ? L.stats.motion : undefined, after?.motionKnown ? after.stats.motion : undefined].filter(
      (x): x is number => x !== undefined,
    );
    const still = (R.link?.mad ?? Infinity) < STILL_MOTION && mads.every((m) => m < STILL_MOTION);
    const motion = still ? 0 : mads.length ? mads.reduce((s, x) => s + x, 0) / mads.length : 0;
    for (let j = a + 1; j < b; j++) {
      const f = (j - a) / (b - a);
      out[j] = {
        mean: L.stats.mean + (R.stats.mean - L.stats.mean) * f,
        sharp: L.stats.sharp + (R.stats.sharp - L.stats.sharp) * f,
        hist: f < 0.5 ? L.stats.hist : R.stats.hist,
        motion,
      };
    }
    // The first slot after the gap: its own picture, the gap's motion.
    if (!R.motionKnown) out[b] = { ...R.stats, motion };
  }
  return out;
}

/** The sharp reference of measured slots: the 90th percentile detail of non-black pictures. */
export function sharpReference(stats: FrameStats[]): number {
  const s = stats
    .filter((x) => !isBlackStats(x))
    .map((x) => x.sharp)
    .sort((a, b) => a - b);
  return s[Math.floor(s.length * 0.9)] ?? 0;
}
