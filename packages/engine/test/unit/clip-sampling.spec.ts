import { scoreStats } from '../../src/clip-analysis';
import {
  denseReason,
  fillGaps,
  gapsOf,
  gopsOf,
  packetReason,
  parsePacketIndex,
  passCoverage,
  passTimes,
  refineReason,
  sparsePlan,
  tailReason,
  type Gop,
  type PacketIndex,
  type Slot,
} from '../../src/clip-sampling';
import type { FrameStats } from '../../src/frame-stats';

const FPS = 30;

/**
 * Packets of a steady H.264 stream in decode order: a keyframe every `gopSec`, then P B B
 * (P two frames ahead of the B frames shown before it), sizes key 40000, P 9000, B 3000.
 */
function stream(
  durationSec: number,
  gopSec = 2,
  sizeAt: (t: number, kind: 'K' | 'P' | 'B') => number = (_, k) => ({ K: 40000, P: 9000, B: 3000 })[k],
): PacketIndex {
  const packets: PacketIndex['packets'] = [];
  const frames = Math.round(durationSec * FPS);
  const gop = Math.round(gopSec * FPS);
  for (let g = 0; g < frames; g += gop) {
    const end = Math.min(frames, g + gop);
    packets.push({ t: g / FPS, size: sizeAt(g / FPS, 'K'), key: true });
    for (let f = g + 1; f < end; f += 3) {
      const p = Math.min(end - 1, f + 2);
      packets.push({ t: p / FPS, size: sizeAt(p / FPS, 'P'), key: false });
      for (let b = f; b < p; b++) packets.push({ t: b / FPS, size: sizeAt(b / FPS, 'B'), key: false });
    }
  }
  return { codec: 'h264', width: 1920, height: 1080, fps: FPS, rotation: 0, packets };
}

const stats = (mean: number, sharp = 10, motion = 3, hist = 0): FrameStats => {
  const h = new Float32Array(16);
  h[hist] = 1;
  return { mean, sharp, motion, hist: h };
};
const slot = (s: FrameStats, motionKnown = true, link?: Slot['link']): Slot => ({ stats: s, motionKnown, link });

/** Two windows of two slots each around a gap: slots 0-1 and 16-17 of 18. */
function gapTable(left: FrameStats[], right: FrameStats[], link: Slot['link']): Array<Slot | undefined> {
  const t: Array<Slot | undefined> = new Array(18).fill(undefined);
  t[0] = slot(left[0]!, false);
  t[1] = slot(left[1]!);
  t[16] = slot(right[0]!, false, link);
  t[17] = slot(right[1]!);
  return t;
}

describe('the packet index', () => {
  it("reads ffprobe's packets on the clip's timeline, with the stream's rotation and frame rate", () => {
    const text = [
      'packet|pts_time=1.400000|size=5000|flags=K_',
      'packet|pts_time=1.466667|size=900|flags=__',
      'packet|pts_time=N/A|size=800|flags=__',
      'stream|codec_name=h264|width=1920|height=1080|r_frame_rate=30/1|avg_frame_rate=30000/1001|side_data|rotation=-90',
      'format|start_time=1.400000',
    ].join('\n');
    const index = parsePacketIndex(text);
    expect(index.packets.map((p) => [p.t, p.size, p.key])).toEqual([
      [0, 5000, true],
      [0.066667, 900, false],
      [NaN, 800, false],
    ]);
    expect([index.codec, index.width, index.height, index.rotation]).toEqual(['h264', 1920, 1080, 90]);
    expect(index.fps).toBeCloseTo(29.97, 2);
    // The old rotate tag is clockwise already.
    expect(parsePacketIndex('stream|codec_name=h264|tag:rotate=270\nformat|start_time=0').rotation).toBe(270);
  });

  it('splits packets into GOPs that end at the next keyframe, leaving out what comes before the first', () => {
    const index = stream(6);
    index.packets.unshift({ t: -0.1, size: 100, key: false });
    const gops = gopsOf(index, 6);
    expect(gops.map((g) => [g.index, g.keyTime, g.end, g.packets.length])).toEqual([
      [1, 0, 2, 60],
      [2, 2, 4, 60],
      [3, 4, 6, 60],
    ]);
  });
});

describe('when the sparse path is used', () => {
  it('only for heavy H.264/HEVC with closed GOPs every 0.5-3.2 s', () => {
    const ok = stream(20);
    expect(denseReason(ok, 20, gopsOf(ok, 20))).toBeUndefined();
    const vp9 = { ...ok, codec: 'vp9' };
    expect(denseReason(vp9, 20, gopsOf(vp9, 20))).toBe('codec vp9');
    const small = { ...ok, width: 640, height: 360 };
    expect(denseReason(small, 20, gopsOf(small, 20))).toBe('light clip');
    const long = stream(20, 5);
    expect(denseReason(long, 20, gopsOf(long, 20))).toBe('keyframes every 5.00 s');
    const two = stream(4);
    expect(denseReason(two, 4, gopsOf(two, 4))).toMatch(/fewer than 3 keyframes|light clip/);
    // A picture after a keyframe but shown before it: an open GOP.
    const open = stream(20);
    const k = open.packets.findIndex((p, i) => i > 0 && p.key);
    open.packets.splice(k + 1, 0, { t: 1.98, size: 3000, key: false });
    expect(denseReason(open, 20, gopsOf(open, 20))).toBe('open GOPs (leading pictures)');
  });
});

describe('the first pass', () => {
  it('keeps, in decode order, every packet shown before the third slot after each keyframe, so each window measures two slots', () => {
    const index = stream(10);
    const plan = sparsePlan(gopsOf(index, 10), 10, FPS);
    // Frames up to 0.1875 s (5 frames) are needed; the P frame that B frames wait for comes first.
    const kept = gopsOf(index, 10)[0]!
      .packets.slice(0, plan.windowPackets)
      .map((p) => Math.round(p.t * FPS));
    expect([...kept].sort((a, b) => a - b).slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    const cover = passCoverage(plan, new Set(plan.full), 'all');
    expect(plan.full).toEqual([]);
    expect(cover.get(1)).toEqual([0, 2]);
    expect(cover.get(3)).toEqual([32, 34]);
    expect(passTimes(plan, new Set(), 'all')).toHaveLength(5 * plan.windowPackets);
  });

  it('decodes a GOP whole when its packets after the window fall or jump in size: black, frozen, blurred or a cut', () => {
    const gop = (sizeAt: (t: number, k: 'K' | 'P' | 'B') => number): Gop => gopsOf(stream(2, 2, sizeAt), 2)[0]!;
    const base = { K: 40000, P: 9000, B: 3000 };
    const n = sparsePlan([gop((_, k) => base[k])], 2, FPS).windowPackets;
    expect(
      packetReason(
        gop((_, k) => base[k]),
        n,
        FPS,
      ),
    ).toBeUndefined();
    // Black (or frozen) from 1 s: tiny packets.
    expect(
      packetReason(
        gop((t, k) => (t >= 1 && k !== 'K' ? 40 : base[k])),
        n,
        FPS,
      ),
    ).toBe('packet level change');
    // Blurred from 0.8 s: a third of the bits.
    expect(
      packetReason(
        gop((t, k) => (t >= 0.8 && k !== 'K' ? base[k] / 4 : base[k])),
        n,
        FPS,
      ),
    ).toBe('packet level change');
    // One frame at 1.3 s coded almost like a keyframe: a cut without a keyframe.
    expect(
      packetReason(
        gop((t, k) => (Math.abs(t - 1.3) < 0.01 ? 30000 : base[k])),
        n,
        FPS,
      ),
    ).toBe('cut-like packet');
    const plan = sparsePlan(
      gopsOf(
        stream(6, 2, (t, k) => (t >= 3 && t < 4 && k !== 'K' ? 40 : base[k])),
        6,
      ),
      6,
      FPS,
    );
    expect(plan.full).toEqual([2]);
    expect(passCoverage(plan, new Set(plan.full), 'all').get(2)).toEqual([16, 32]);
  });
});

describe('gaps between windows', () => {
  const moving = [stats(120), stats(121)];
  const alike = { mad: 6, hist: 0.05 };

  it('are filled when their ends agree', () => {
    expect(refineReason(gapTable(moving, moving, alike), 1, 16, 10)).toBeUndefined();
    // Both ends still and the same picture: a freeze spans the gap, no need to look.
    const still = [stats(120, 10, 0.1), stats(120, 10, 0.1)];
    expect(refineReason(gapTable(still, still, { mad: 0.1, hist: 0 }), 1, 16, 10)).toBeUndefined();
  });

  it('are decoded when their ends differ as a cut, black, a fade, a freeze or a blur would leave them', () => {
    const cases: Array<[string, Array<Slot | undefined>, number]> = [
      ['black on one side', gapTable(moving, [stats(16, 0, 3), stats(16, 0, 3)], alike), 10],
      ['brightness change', gapTable(moving, [stats(60), stats(61)], alike), 10],
      ['possible cut', gapTable(moving, moving, { mad: 30, hist: 0.8 }), 10],
      ['stillness', gapTable([stats(120, 10, 0.1), stats(120, 10, 0.1)], moving, alike), 10],
      [
        'stillness',
        gapTable([stats(120, 10, 0.1), stats(120, 10, 0.1)], [stats(120, 10, 0.1), stats(120, 10, 0.1)], { mad: 9, hist: 0.1 }),
        10,
      ],
      ['blur on one side', gapTable(moving, [stats(120, 3), stats(120, 3)], alike), 10],
    ];
    for (const [why, table, ref] of cases) expect([why, refineReason(table, 1, 16, ref)]).toEqual([why, why]);
    const far: Array<Slot | undefined> = new Array(40).fill(undefined);
    far[0] = slot(moving[0]!, false);
    far[1] = slot(moving[1]!);
    far[38] = slot(moving[0]!, false, alike);
    far[39] = slot(moving[1]!);
    expect(refineReason(far, 1, 38, 10)).toBe('long gap');
  });

  it('fill brightness and detail between their ends, motion from the windows, and never a cut or black inside', () => {
    const left = [stats(100, 8, 4, 6), stats(100, 8, 4, 6)];
    const right = [stats(140, 12, 2, 8), stats(140, 12, 2, 8)];
    const table = gapTable(left, right, { mad: 10, hist: 0.3 });
    expect(gapsOf(table)).toEqual([[1, 16]]);
    const filled = fillGaps(table);
    expect(filled).toHaveLength(18);
    expect(filled[5]!.mean).toBeCloseTo(100 + (40 * 4) / 15, 6);
    expect(filled[5]!.sharp).toBeCloseTo(8 + (4 * 4) / 15, 6);
    expect(filled.slice(2, 16).every((s) => s.motion === 3)).toBe(true);
    expect(filled[16]!.motion).toBe(3);
    const a = scoreStats(filled, 0.125, 18 / 8);
    expect(a.scenes).toEqual([]);
    expect(a.black.some(Boolean) || a.frozen.some(Boolean)).toBe(false);
    // A still gap between two still, alike ends is still: frozen once it lasts a second.
    const still = [stats(120, 10, 0.1), stats(120, 10, 0.1)];
    const frozen = scoreStats(fillGaps(gapTable(still, still, { mad: 0.1, hist: 0 })), 0.125, 18 / 8);
    expect(frozen.frozen.slice(2, 16).every(Boolean)).toBe(true);
  });

  it("carry the last window's picture and motion to the end of the clip, unless the tail is long", () => {
    const t: Array<Slot | undefined> = new Array(20).fill(undefined);
    t[0] = slot(stats(120, 10, 5), false);
    t[1] = slot(stats(121, 10, 5));
    expect(tailReason(t)).toBeUndefined();
    const filled = fillGaps(t);
    expect(filled.slice(2).every((s) => s.mean === 121 && s.motion === 5)).toBe(true);
    const long: Array<Slot | undefined> = new Array(40).fill(undefined);
    long[0] = slot(stats(120), false);
    long[1] = slot(stats(121));
    expect(tailReason(long)).toBe('long tail');
  });
});
