import { parseCli } from '../../src/cli';

describe('reelsmith-render --duration and --music-start', () => {
  it('takes a target length of 5 to 600 s and a music start, absent meaning the whole song', () => {
    expect(parseCli(['--clip', 'a.mp4', '--music', 's.mp3', '--duration', '30', '--music-start', '48.5', '--plan-only'])).toMatchObject({
      targetSec: 30,
      musicStartSec: 48.5,
    });
    const whole = parseCli(['--clip', 'a.mp4', '--music', 's.mp3', '--plan-only']);
    expect(whole.targetSec).toBeUndefined();
    expect(whole.musicStartSec).toBeUndefined();
  });

  it('refuses bad values with one clear line', () => {
    expect(() => parseCli(['--clip', 'a.mp4', '--duration', '4', '--plan-only'])).toThrow(
      '--duration must be a number of seconds from 5 to 600, not 4',
    );
    expect(() => parseCli(['--clip', 'a.mp4', '--duration', 'long', '--plan-only'])).toThrow(
      '--duration must be a number of seconds from 5 to 600, not long',
    );
    expect(() => parseCli(['--clip', 'a.mp4', '--music-start', '-3', '--plan-only'])).toThrow(/--music-start/);
    expect(() => parseCli(['--clip', 'a.mp4', '--music-start', '3', '--plan-only'])).toThrow('--music-start needs --music');
  });
});
