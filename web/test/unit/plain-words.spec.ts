import { errorDetail } from '../../src/base/api';
import { plainWords } from '../../src/base/plain-words';

describe('server error details in plain words', () => {
  it('words the song window that is off the bar lines without the API field name', () => {
    const said = plainWords('music_start_sec: 48.48574 s is not on a bar line of the song (the nearest is 48.798 s)');
    expect(said).toBe(
      'The part of the song you chose (from 0:48) is no longer on a bar line of the song; the nearest is at 0:49. Move the window on the song again.',
    );
    expect(said).not.toMatch(/_/);
  });

  it('names the setting instead of the field, in the services’ and the schema’s messages', () => {
    expect(plainWords('target_duration_sec: must be at most 600')).toBe('The reel length: must be at most 600');
    expect(plainWords('body/target_duration_sec must be <= 600')).toBe('The reel length: must be <= 600');
    expect(plainWords('body/title_config/font_size must be <= 400')).toBe('The font size: must be <= 400');
    expect(plainWords('some_new_field: is wrong')).toBe('The some new field: is wrong');
  });

  it('leaves a detail without field names as it is', () => {
    expect(plainWords('Your card was declined.')).toBe('Your card was declined.');
    expect(plainWords('Error: something')).toBe('Error: something');
  });

  it('is what errorDetail shows', () => {
    expect(errorDetail({ data: { detail: 'music_file: there is no such file', code: 'invalid_request' } }, 'x')).toBe(
      'The music: there is no such file',
    );
    expect(errorDetail({ data: {} }, 'Could not make the preview')).toBe('Could not make the preview');
  });
});
