import { formatCount, formatDate, formatDateTime, formatDecimal, formatMoney, formatPlural, pluralCategory } from '../../src/base/format';
import { formatViews } from '../../src/features/public/VideoCard';

describe('the web app formatter', () => {
  it('says "1 view" and "2 views", with grouping', () => {
    expect(formatViews(0)).toBe('0 views');
    expect(formatViews(1)).toBe('1 view');
    expect(formatViews(2)).toBe('2 views');
    expect(formatViews(12345)).toBe('12,345 views');
    expect(formatPlural(1, 'credit')).toBe('1 credit');
    expect(formatPlural(4800, 'credit')).toBe('4,800 credits');
    expect(formatPlural(3, 'reply', 'replies')).toBe('3 replies');
  });
  it('writes every date one way, and nothing for a missing or bad one', () => {
    // Noon UTC is the same calendar day in every time zone from UTC-11 to UTC+11.
    expect(formatDate('2026-11-26T12:00:00Z')).toBe('Nov 26, 2026');
    expect(formatDate(new Date('2026-01-05T12:00:00Z'))).toBe('Jan 5, 2026');
    expect(formatDateTime('2026-11-26T12:00:00Z')).toMatch(/^Nov 26, 2026, \d{1,2}:\d{2}\s?[AP]M$/);
    expect(formatDate(null)).toBe('');
    expect(formatDate('not a date')).toBe('');
  });
  it('shows money in dollars with cents, or whole dollars for prices', () => {
    expect(formatMoney(40)).toBe('$40.00');
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(1632, { whole: true })).toBe('$1,632');
    expect(formatMoney(19.99, { whole: true })).toBe('$19.99');
    expect(formatCount(5321)).toBe('5,321');
    expect(formatDecimal(1.5, 2)).toBe('1.50');
  });
});

describe('the web app formatter without Intl.NumberFormat', () => {
  // formatCount, formatDecimal and formatMoney write numbers themselves (no Intl object at start):
  // they must say exactly what Intl.NumberFormat('en-US') says.
  const intl = (n: number, o: Intl.NumberFormatOptions) => new Intl.NumberFormat('en-US', o).format(n);
  // A fixed seed, so a failure names the same numbers every run.
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const values = [
    0,
    -0,
    1,
    -1,
    0.5,
    1.5,
    2.5,
    -2.5,
    0.125,
    1.005,
    1.015,
    2.675,
    9.995,
    99.995,
    999.5,
    999.9999,
    1000,
    12345.678,
    -12345.678,
    0.001,
    -0.001,
    -0.004,
    0.1 + 0.2,
    1e-7,
    123456789012,
    2 ** 53,
    1e21,
    1.5e300,
    19.99,
    1632,
    0.07 * 100,
    NaN,
    Infinity,
    -Infinity,
    ...Array.from({ length: 400 }, (_, i) => {
      const scale = 10 ** ((i % 9) - 3);
      return (Math.round((random() - 0.3) * 1e6) / 1e3) * scale;
    }),
  ];
  it.each([0, 1, 2, 3])('writes counts and decimals with %i digits as Intl does', (digits) => {
    for (const n of values) {
      expect([n, formatDecimal(n, digits)]).toEqual([n, intl(n, { minimumFractionDigits: digits, maximumFractionDigits: digits })]);
      if (digits === 0) expect([n, formatCount(n)]).toEqual([n, intl(n, { maximumFractionDigits: 0 })]);
    }
  });
  it('writes dollars as Intl does, with cents or as whole prices', () => {
    for (const n of values) {
      expect([n, formatMoney(n)]).toEqual([n, intl(n, { style: 'currency', currency: 'USD', minimumFractionDigits: 2 })]);
      expect([n, formatMoney(n, { whole: true })]).toEqual([
        n,
        intl(n, { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 2 }),
      ]);
    }
  });
  it('picks the plural form Intl.PluralRules does', () => {
    const rules = new Intl.PluralRules('en-US');
    for (const n of values) expect([n, pluralCategory(n)]).toEqual([n, rules.select(n)]);
  });
});
