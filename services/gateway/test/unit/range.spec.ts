import { byteRange as parseRange } from '../../src/domain/byte-range';

describe('parseRange (the marketplace player)', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
  ])('%s of 1000 bytes', (h, want) => expect(parseRange(h, 1000)).toEqual(want));
  it('no header or another unit is the whole file; past the end is unsatisfiable', () => {
    expect(parseRange(undefined, 1000)).toBeNull();
    expect(parseRange('items=0-1', 1000)).toBeNull();
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 1000)).toBe('unsatisfiable');
  });
});
