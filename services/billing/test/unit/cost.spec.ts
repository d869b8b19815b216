import { estimateCredits, type Pacing } from '../../src/domain/cost';
import { CREDIT_PACKS, PLANS } from '../../src/domain/catalogue';
import { entitlementsFor, limitMessages } from '../../src/domain/entitlements';

const MB = 1024 * 1024;

describe('the one cost formula', () => {
  // [pacing, music, total source bytes, credits]: worked by hand from the formula.
  const table: Array<[Pacing, boolean, number, number]> = [
    ['relaxed', false, 0, 20], // 120/6*1
    ['standard', false, 0, 30], // 120/6*1.5
    ['high-energy', false, 0, 40], // 120/6*2
    ['relaxed', true, 0, 32], // 190/6 = 31.67, rounded up
    ['standard', true, 0, 48], // 47.5 -> 48
    ['high-energy', true, 0, 64], // 63.33 -> 64
    ['standard', false, 300 * MB, 30], // the first 300 MB are free
    ['standard', false, 300 * MB + 1, 31], // one byte over adds a fraction, rounded up
    ['relaxed', false, 400 * MB, 25], // 20 + 0.05*100, exact
    ['relaxed', false, 1000 * MB, 55], // 20 + 0.05*700
    ['high-energy', true, 3 * 1024 * MB, 202], // 63.33 + 0.05*2772 = 201.93 -> 202
    ['standard', true, 600 * MB, 63], // 47.5 + 15 = 62.5 -> 63
  ];
  it.each(table)('%s, music %s, %i bytes -> %i credits', (pacing, hasMusic, totalSourceBytes, credits) => {
    expect(estimateCredits({ pacing, hasMusic, totalSourceBytes })).toBe(credits);
  });

  it('never goes below the minimum of 10 and refuses negative sizes', () => {
    for (const pacing of ['relaxed', 'standard', 'high-energy'] as const)
      expect(estimateCredits({ pacing, hasMusic: false, totalSourceBytes: 0 })).toBeGreaterThanOrEqual(10);
    expect(() => estimateCredits({ pacing: 'relaxed', hasMusic: false, totalSourceBytes: -1 })).toThrow(RangeError);
  });

  describe('priced by length: 10 credits for each started minute beyond the third', () => {
    // [output seconds, credits] for a standard reel without music (30 credits before length).
    const lengths: Array<[number, number]> = [
      [30, 30], // a 30 s reel costs what it always did
      [180, 30], // 3:00 exactly is covered
      [180.0004, 30], // below a millisecond over (clip durations summed) is still 3:00
      [181, 40], // 3:01 starts the fourth minute
      [240, 40], // 4:00 exactly: one extra minute
      [240.5, 50],
      [720, 120], // 12 minutes: 9 started minutes beyond the third
      [3600, 600], // the paid cap, 60 minutes
    ];
    it.each(lengths)('%s s -> %i credits', (outputSeconds, credits) => {
      expect(estimateCredits({ pacing: 'standard', hasMusic: false, totalSourceBytes: 0, outputSeconds })).toBe(credits);
    });

    it('adds to the rest of the formula, music and size included', () => {
      expect(estimateCredits({ pacing: 'high-energy', hasMusic: true, totalSourceBytes: 3 * 1024 * MB, outputSeconds: 600 })).toBe(
        202 + 70,
      );
      expect(estimateCredits({ pacing: 'relaxed', hasMusic: false, totalSourceBytes: 0 })).toBe(20);
    });

    it('refuses a negative or unknown length', () => {
      for (const outputSeconds of [-1, Number.NaN, Infinity])
        expect(() => estimateCredits({ pacing: 'standard', hasMusic: false, totalSourceBytes: 0, outputSeconds })).toThrow(RangeError);
    });
  });
});

describe('catalogue', () => {
  it('carries the spec prices and credits', () => {
    expect(PLANS.map((p) => [p.id, p.monthlyPriceCents, p.yearlyPriceCents, p.monthlyCredits, p.yearlyCredits])).toEqual([
      ['standard', 2000, 19200, 400, 4800],
      ['mid-tier', 6000, 57600, 1800, 21600],
      ['corporate', 17000, 163200, 6800, 81600],
    ]);
    expect(CREDIT_PACKS.map((p) => [p.id, p.credits, p.priceCents])).toEqual([
      ['credits_200', 200, 1000],
      ['credits_400', 400, 2000],
      ['credits_1000', 1000, 4000],
      ['credits_2500', 2500, 8000],
    ]);
  });
});

describe('entitlements', () => {
  it('gives free limits unless a paid subscription is active, and paid limits to admins', () => {
    expect(entitlementsFor('free', false, false)).toEqual({
      uploadCapBytes: 629145600,
      musicCapSeconds: 180,
      librarySelectionCap: 20,
      reelCapSeconds: 180,
      unlimited: false,
      subscribed: false,
    });
    expect(entitlementsFor('standard', false, false).uploadCapBytes).toBe(629145600);
    expect(entitlementsFor('corporate', true, false)).toEqual({
      uploadCapBytes: 3221225472,
      musicCapSeconds: 7200,
      librarySelectionCap: 1000,
      reelCapSeconds: 3600,
      unlimited: false,
      subscribed: true,
    });
    expect(entitlementsFor('free', false, true)).toMatchObject({ uploadCapBytes: 3221225472, reelCapSeconds: 3600, unlimited: true });
  });

  it('words the limits as the spec does', () => {
    const free = entitlementsFor('free', false, false);
    const paid = entitlementsFor('standard', true, false);
    expect(limitMessages.upload(free)).toBe('Total upload size exceeds 600MB limit.');
    expect(limitMessages.upload(paid)).toBe('Total upload size exceeds 3GB limit.');
    expect(limitMessages.selection(free)).toBe('Free plan allows up to 20 video selections.');
    expect(limitMessages.selection(paid)).toBe('Subscriber plan allows up to 1000 video selections.');
    expect(limitMessages.music(free)).toContain('3 minutes');
    expect(limitMessages.music(paid)).toContain('2 hours');
    expect(limitMessages.reelLength(free)).toBe('Free videos can be up to 3 minutes long. Upgrade to make longer reels.');
    expect(limitMessages.reelLength(paid)).toBe('Reels can be up to 60 minutes long.');
  });
});
