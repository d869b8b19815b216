import { assertKey, newObjectKey, signLocal, verifyLocalSignature } from '../../src/storage';
import { splitStatements } from '../../src/db';
import { backoffMs } from '../../src/bus';

describe('object keys', () => {
  it('generates keys that pass validation and keep only a safe extension', () => {
    const k = newObjectKey('uploads', '.MP4');
    expect(() => assertKey(k)).not.toThrow();
    expect(k).toMatch(/^uploads\/\d{4}-\d{2}-\d{2}\/[0-9a-f-]{36}\.mp4$/);
    expect(newObjectKey('uploads', '.mp4;rm -rf')).not.toContain(';');
  });

  it.each(['../etc/passwd', 'a/../../b', '/abs', 'a//b', 'a b', ''])('rejects %p', (k) => {
    expect(() => assertKey(k)).toThrow('invalid object key');
  });
});

describe('local signed links', () => {
  const secret = 'x'.repeat(32);
  it('accepts an untouched link before it expires and nothing else', () => {
    const exp = Math.floor(Date.now() / 1000) + 60;
    const sig = signLocal(secret, 'reels/a.mp4', exp, 'reel.mp4');
    expect(verifyLocalSignature(secret, 'reels/a.mp4', exp, 'reel.mp4', sig)).toBe(true);
    expect(verifyLocalSignature(secret, 'reels/b.mp4', exp, 'reel.mp4', sig)).toBe(false);
    expect(verifyLocalSignature(secret, 'reels/a.mp4', exp + 1, 'reel.mp4', sig)).toBe(false);
    expect(verifyLocalSignature('y'.repeat(32), 'reels/a.mp4', exp, 'reel.mp4', sig)).toBe(false);
    expect(verifyLocalSignature(secret, 'reels/a.mp4', exp, 'reel.mp4', sig, (exp + 1) * 1000)).toBe(false);
  });
});

describe('migration splitting', () => {
  it('splits on statement ends and ignores comments', () => {
    expect(splitStatements('-- c\ncreate table a (x int);\n\ncreate index i on a (x);\n')).toEqual([
      '-- c\ncreate table a (x int)',
      'create index i on a (x)',
    ]);
  });
});

describe('redelivery backoff', () => {
  it('doubles from one second and caps at thirty', () => {
    expect([1, 2, 3, 4, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 30000]);
  });
});
