import { DISPLAY_NAME_MAX, displayNameProblem, normaliseDisplayName } from '../../src/display-name';

describe('display name rule', () => {
  it('accepts 1 to 40 characters of visible text once trimmed, in NFC', () => {
    expect(displayNameProblem('A')).toBeNull();
    expect(displayNameProblem('  Zoë Müller-Østergaard  ')).toBeNull();
    expect(displayNameProblem('x'.repeat(DISPLAY_NAME_MAX))).toBeNull();
    // 40 code points of two UTF-16 units each.
    expect(displayNameProblem('\u{1F3AC}'.repeat(40))).toBeNull();
    // 40 characters once composed (e + combining acute is one é).
    expect(displayNameProblem('e\u0301'.repeat(40))).toBeNull();
    expect(normaliseDisplayName('  Cafe\u0301  ')).toBe('Caf\u00e9');
  });

  it.each([
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    ['x'.repeat(41), 'must be at most 40 characters'],
    ['Ann\u0000', 'control characters'],
    ['Ann\r\nSmith', 'control characters'],
    ['Ann\u009b', 'control characters'],
    ['Ann\u2029', 'control characters'],
    ['\u202eAnn', 'invisible or direction-changing'],
    ['A\u2066nn\u2069', 'invisible or direction-changing'],
    ['A\u200dnn', 'invisible or direction-changing'],
    ['\ufeffAnn', 'invisible or direction-changing'],
    ['Ann\udc00', 'valid Unicode'],
  ])('refuses %j', (raw, why) => {
    expect(displayNameProblem(raw)).toContain(why);
  });
});
