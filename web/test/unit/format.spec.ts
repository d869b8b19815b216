import { formatCount, formatDate, formatDateTime, formatDecimal, formatMoney, formatPlural } from '../../src/base/format';
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
