import { parseRange } from '../../src/transport/http/send-object';

describe('HTTP Range of library files', () => {
  it('reads the forms browsers send, clamped to the file', () => {
    expect(parseRange(undefined, 1000)).toBeNull();
    expect(parseRange('bytes=0-', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseRange('bytes=100-199', 1000)).toEqual({ start: 100, end: 199 });
    expect(parseRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-10', 1000)).toEqual({ start: 990, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
  });
  it('refuses what cannot be satisfied or parsed', () => {
    for (const h of ['bytes=1000-', 'bytes=5-1', 'bytes=-0', 'bytes=-', 'items=0-1', 'bytes=0-1,5-6'])
      expect(parseRange(h, 1000)).toBe('bad');
  });
});
