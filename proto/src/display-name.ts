/**
 * An account's public display name (the Hall of Fame's creator cards): the one rule identity
 * stores by and the gateway checks requests with.
 * - trimmed, then normalised to NFC, so the same name is stored once;
 * - 1 to 40 characters (Unicode code points) once trimmed;
 * - single-line visible text: no control characters (C0, C1, line and paragraph separators), no
 *   lone surrogates, no bidirectional controls and no zero-width characters, which make one name
 *   look like another (the gateway's text rule for identifiers).
 */
export const DISPLAY_NAME_MAX = 40;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Bidirectional controls (embeddings, overrides, isolates, marks) and zero-width characters. */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** Why `raw` is not a display name (a sentence naming `what`), or null when it is one. */
export function displayNameProblem(raw: string, what = 'The public name'): string | null {
  if (CONTROL.test(raw)) return `${what} must not contain control characters or line breaks`;
  if (LONE_SURROGATE.test(raw)) return `${what} must be valid Unicode text`;
  if (INVISIBLE.test(raw)) return `${what} must not contain invisible or direction-changing characters`;
  const name = raw.trim();
  if (!name) return `${what} must not be empty`;
  if ([...name.normalize('NFC')].length > DISPLAY_NAME_MAX) return `${what} must be at most ${DISPLAY_NAME_MAX} characters`;
  return null;
}

/** The stored form of a valid display name (check it with `displayNameProblem` first). */
export const normaliseDisplayName = (raw: string): string => raw.trim().normalize('NFC');
