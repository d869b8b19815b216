import { CLIP_ANALYSIS_VERSION, type ClipAnalysis } from '../../src/clip-analysis';
import { chooseWindow } from '../../src/plan-windows';
import { SUBJECT_TRACK_VERSION } from '../../src/reframe';
import type { SubjectTrack } from '../../src/reframe/types';

/** A clean 12 s clip whose first half is a little sharper (score 0.8) than its second (0.7). */
function analysis(subjects?: SubjectTrack): ClipAnalysis {
  const times = Array.from({ length: 96 }, (_, i) => i / 8);
  return {
    version: CLIP_ANALYSIS_VERSION,
    durationSec: 12,
    sampleIntervalSec: 0.125,
    times,
    score: times.map((t) => (t < 6 ? 0.8 : 0.7)),
    black: times.map(() => false),
    frozen: times.map(() => false),
    blurred: times.map(() => false),
    scenes: [],
    ...(subjects ? { subjects } : {}),
  };
}

/** A car in the second half only (one strong moving region); texture alone before it. */
const carLater: SubjectTrack = {
  version: SUBJECT_TRACK_VERSION,
  intervalSec: 0.25,
  shots: [],
  samples: Array.from({ length: 48 }, (_, i) => {
    const t = i / 4;
    return {
      t,
      boxes:
        t >= 6
          ? [{ x: 0.2 + (t - 6) * 0.1, y: 0.4, w: 0.2, h: 0.2, weight: 0.9, moving: true }]
          : [0, 1, 2].map((k) => ({ x: 0.1 + k * 0.3, y: 0.7, w: 0.1, h: 0.1, weight: 0.15, moving: false })),
    };
  }),
};

describe('Intelligence with a subject track', () => {
  it('prefers the window with the subject to a slightly sharper empty one', () => {
    const without = chooseWindow(analysis(), 12, 3, [], 0);
    expect(without.start + 3).toBeLessThanOrEqual(6);
    const withTrack = chooseWindow(analysis(carLater), 12, 3, [], 0);
    expect(withTrack.start).toBeGreaterThanOrEqual(6);
  });
});
