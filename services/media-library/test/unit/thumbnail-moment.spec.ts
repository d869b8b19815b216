import { thumbnailMoment } from '../../src/domain/thumbnail-moment';

describe("a video thumbnail's moment", () => {
  it('skips a fade from black: the first frame after it, not the usual second in', () => {
    // The starter bunny-meadow-1 clip (Big Buck Bunny from 0 s), mean luma 4 frames a second.
    const bunny = [4, 3, 13, 31, 63, 102, 134, 178, 219, 218, 217, 217, 215, 213, 212, 209, 206, 202, 199, 196];
    expect(thumbnailMoment(bunny, 1)).toBe(2);
  });

  it('keeps the second in when that frame is lit', () => {
    const traffic = [115, 115, 115, 115, 115, 115, 115, 115, 116, 119, 119, 116, 112, 102, 91, 79, 72, 67, 69, 73];
    expect(thumbnailMoment(traffic, 1)).toBe(1);
    // A dark clip is judged against its own brightness: a night scene is not "faded".
    expect(thumbnailMoment([40, 41, 40, 42, 41, 40, 42, 41, 40], 1)).toBe(1);
  });

  it('looks past a black frame at the preferred moment, and takes the brightest when nothing is lit', () => {
    expect(thumbnailMoment([120, 120, 120, 120, 5, 5, 120, 121, 120, 120, 120, 120], 1)).toBe(1.5);
    expect(thumbnailMoment([2, 3, 9, 4, 3, 2], 1)).toBe(0.5);
    expect(thumbnailMoment([], 0.4)).toBe(0.4);
  });
});
