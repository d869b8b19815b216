/**
 * A server's error detail as the person reads it: the API's field names (`music_start_sec: …`,
 * `body/target_duration_sec must be …`) are the request's, not the page's, so they become the
 * words the page uses for that setting. A detail without field names is returned as it is.
 */
const FIELD_WORDS: Record<string, string> = {
  music_start_sec: 'The start of the song window',
  target_duration_sec: 'The reel length',
  media_files: 'The clips',
  music_file: 'The music',
  pacing_preset: 'The pacing',
  title_config: 'The title',
  title_text: 'The title',
  font_size: 'The font size',
  font_file: 'The font',
  fade_in_sec: 'The fade in',
  fade_out_sec: 'The fade out',
  output_filename: 'The file name',
  display_name: 'The name',
  aspect: 'The shape',
  reroll: 'The segment to re-roll',
  locked: 'The locked segments',
  taps: 'The taps',
};

/** "48.48574 s" -> "0:48" (whole seconds, as the studio shows times). */
const clockOf = (s: string) => {
  const t = Math.max(0, Math.round(Number(s)));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

const fieldWords = (name: string) => FIELD_WORDS[name] ?? `The ${name.replace(/_sec$/, '').replace(/_/g, ' ')}`;

export function plainWords(detail: string): string {
  // The song window's start after the song's beats changed (a tempo correction) or a stale page.
  const bar = /^music_start_sec: ([\d.]+) s is not on a bar line of the song \(the nearest is ([\d.]+) s\)/.exec(detail);
  if (bar)
    return `The part of the song you chose (from ${clockOf(bar[1]!)}) is no longer on a bar line of the song; the nearest is at ${clockOf(bar[2]!)}. Move the window on the song again.`;
  // "field_name: message": the services' own checks.
  const own = /^([a-z][a-z0-9]*_[a-z0-9_]*): (.+)$/s.exec(detail);
  if (own) return `${fieldWords(own[1]!)}: ${own[2]!}`;
  // "body/field_name message" (or body/title_config/font_size): the request schema's checks.
  const schema = /^(?:body|querystring|params|headers)\/([a-z0-9_/]+)[:]? (.+)$/s.exec(detail);
  if (schema) return `${fieldWords(schema[1]!.split('/').filter(Boolean).pop() ?? '')}: ${schema[2]!}`;
  return detail;
}
