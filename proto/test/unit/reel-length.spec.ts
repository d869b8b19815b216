import { reelSeconds } from '../../src/reel-length';

describe('how long a reel will be', () => {
  it('is as long as the music when there is music, however much footage there is', () => {
    expect(reelSeconds([720, 30], 90)).toBe(90);
  });

  it('is the clips added up without music (a 12-minute clip makes a 12-minute reel)', () => {
    expect(reelSeconds([720])).toBe(720);
    expect(reelSeconds([10, 20.5, 30])).toBe(60.5);
    expect(reelSeconds([])).toBe(0);
  });

  it('lasts the target when one is asked for, at most the music (or the material without music)', () => {
    expect(reelSeconds([720], 240, 30)).toBe(30);
    expect(reelSeconds([720], 90, 120)).toBe(90);
    expect(reelSeconds([20, 20], undefined, 30)).toBe(30);
    expect(reelSeconds([20], undefined, 30)).toBe(20);
    expect(reelSeconds([20], 90, null)).toBe(90);
  });
});
