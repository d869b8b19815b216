import { peakIn, peakNear } from '../../src/beat-peaks';
import { cosineSimilarity, upperMedian } from '../../src/numeric';

describe('cosine similarity', () => {
  it('is 1 for vectors in the same direction, 0 for orthogonal ones, and the given value for silence', () => {
    expect(cosineSimilarity([1, 2, 0], [2, 4, 0])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 0, 0], [0, 3, 0])).toBe(0);
    expect(cosineSimilarity([1, 1, 0], [1, 0, 0])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosineSimilarity([0, 0, 0], [1, 0, 0])).toBe(0);
    expect(cosineSimilarity([0, 0, 0], [1, 0, 0], 1)).toBe(1);
  });
});

describe('the upper median', () => {
  it('is the middle value, the upper of the two middle ones for an even count, 0 for none, and leaves its input as it was', () => {
    const xs = [0.9, 0.1, 0.5];
    expect(upperMedian(xs)).toBe(0.5);
    expect(xs).toEqual([0.9, 0.1, 0.5]);
    expect(upperMedian([4, 1, 3, 2])).toBe(3);
    expect(upperMedian(Float32Array.from([2, 8]))).toBe(8);
    expect(upperMedian([])).toBe(0);
  });
});

describe('peaks in an envelope', () => {
  const v = Float32Array.from([5, 0, 1, 3, 0, 0, 2, 0]);

  it('takes the strongest value in a window, both ends included, clipped to the array', () => {
    expect(peakIn(v, 2, 3)).toBe(3);
    expect(peakIn(v, 4, 6)).toBe(2);
    expect(peakIn(v, -3, 1)).toBe(5);
    expect(peakIn(v, 7, 20)).toBe(0);
    expect(peakNear(v, 5)).toBe(3);
    expect(peakNear(v, 5, 1)).toBe(2);
  });

  it('never reports below 0 (an envelope of onsets)', () => {
    expect(peakIn([-1, -2], 0, 1)).toBe(0);
  });
});
