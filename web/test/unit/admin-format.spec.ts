import { REFRESH_MS, refreshInterval, relativeTime, statusColour } from '../../src/features/admin/format';

describe('admin dashboard formatting', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('shows relative times, and Invalid date for a bad timestamp', () => {
    expect(relativeTime('2026-11-23T11:59:50Z', now)).toBe('a few seconds ago');
    expect(relativeTime('2026-11-23T11:59:00Z', now)).toBe('a minute ago');
    expect(relativeTime('2026-11-23T11:55:00Z', now)).toBe('5 minutes ago');
    expect(relativeTime('2026-11-23T11:00:00Z', now)).toBe('an hour ago');
    expect(relativeTime('2026-11-23T09:00:00Z', now)).toBe('3 hours ago');
    expect(relativeTime('2026-11-21T12:00:00Z', now)).toBe('2 days ago');
    expect(relativeTime('not a time', now)).toBe('Invalid date');
    expect(relativeTime('', now)).toBe('Invalid date');
  });
  it("uses the spec's health colours", () => {
    expect(['healthy', 'warning', 'unhealthy', 'critical', 'unknown', undefined].map(statusColour)).toEqual([
      'green',
      'yellow',
      'red',
      'red',
      'grey',
      'grey',
    ]);
  });
  it('refreshes every 30 s unless ?refresh= asks for 2 to 3600 seconds', () => {
    expect(refreshInterval('')).toBe(REFRESH_MS);
    expect(REFRESH_MS).toBe(30_000);
    expect(refreshInterval('?refresh=5')).toBe(5000);
    expect(refreshInterval('?refresh=3600')).toBe(3_600_000);
    for (const bad of ['?refresh=1', '?refresh=0', '?refresh=-5', '?refresh=abc', '?refresh=2.5', '?refresh=', '?refresh=3601'])
      expect(refreshInterval(bad)).toBe(REFRESH_MS);
  });
});
