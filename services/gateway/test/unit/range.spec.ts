import { byteRange } from '../../src/domain/byte-range';

// The gateway's one Range parser (every stored file it sends: library files, signed links, the
// showcase, the marketplace player).
describe('byteRange', () => {
  it.each([
    ['bytes=0-', { start: 0, end: 999 }],
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
  ])('%s of 1000 bytes', (h, want) => expect(byteRange(h, 1000)).toEqual(want));
  it('no header, several ranges or another unit is the whole file (RFC 9110 lets a server ignore them)', () => {
    for (const h of [undefined, 'items=0-1', 'bytes=0-1,5-6', 'bytes=-']) expect(byteRange(h, 1000)).toBeNull();
  });
  it('past the end, backwards or empty is unsatisfiable (416)', () => {
    for (const h of ['bytes=1000-', 'bytes=5-2', 'bytes=-0']) expect(byteRange(h, 1000)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-', 0)).toBe('unsatisfiable');
  });
});
