/**
 * The one rule for text from a request, applied by the validator to every string of every
 * route's validated body, query and params (and by the upload routes to multipart file names and
 * fields) before the route's own zod schema runs:
 * - no NUL and no other control character (tab, line feed and carriage return excepted, which
 *   free text such as the contact form's message may hold; single-line fields refuse them too,
 *   with `plainText`);
 * - well-formed Unicode (no lone surrogates), normalised to NFC, so the same name is stored once
 *   (passwords excepted: they keep the exact form typed, which their stored hash was made from).
 * Identifiers and e-mail addresses (`identifier`, `email`) also refuse bidirectional overrides
 * and zero-width characters, which make one name look like another.
 * A violation is a 400 `{detail, code: 'invalid_text'}` that names the field.
 */
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DISPLAY_NAME_MAX, displayNameProblem } from '@reelsmith/proto';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Half of a UTF-16 pair without the other half: not text, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Bidirectional controls (embeddings, overrides, isolates, marks) and zero-width characters. */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

export const invalidText = (what: string, why: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, `${what} ${why}`, 'invalid_text');

/** The rule for one string; answers it normalised (unless `keepForm`), or throws a 400 naming `what`. */
export function cleanText(s: string, what: string, keepForm = false): string {
  if (CONTROL.test(s)) throw invalidText(what, 'must not contain control characters');
  if (LONE_SURROGATE.test(s)) throw invalidText(what, 'must be valid Unicode text');
  return keepForm ? s : s.normalize('NFC');
}

/**
 * Passwords keep the exact form typed: a stored hash was made from it, and normalising now would
 * lock out an account whose password was typed in another form.
 */
const SECRET_FIELD = /password/i;

/** A single-line text (a file name, a multipart field): no line breaks either. */
export function cleanLine(s: string, what: string): string {
  if (LINE_CONTROL.test(s)) throw invalidText(what, 'must not contain control characters');
  return cleanText(s, what);
}

/** Every string (and key) in a request part, normalised; throws on the first violation. */
export function cleanInput(value: unknown, path: string): unknown {
  if (typeof value === 'string') return cleanText(value, path);
  if (Array.isArray(value)) return value.map((v, i) => cleanInput(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = cleanText(k, `${path}: a field name`);
      out[key] = typeof v === 'string' && SECRET_FIELD.test(key) ? cleanText(v, `${path}.${key}`, true) : cleanInput(v, `${path}.${key}`);
    }
    return out;
  }
  return value;
}

/**
 * fastify-type-provider-zod's validator behind the text rule, for body, querystring and params
 * (headers keep their own schema: Node already refuses control characters in them).
 */
export const validatorCompiler: typeof zodValidatorCompiler = (route) => {
  const zod = zodValidatorCompiler(route);
  if (route.httpPart === 'headers') return zod;
  const part = route.httpPart === 'querystring' ? 'query' : (route.httpPart ?? 'body');
  return (data: unknown) => {
    let cleaned: unknown;
    try {
      cleaned = cleanInput(data, part);
    } catch (e) {
      return { error: e as Error };
    }
    return zod(cleaned);
  };
};

/** An identifier (a key, an id): single-line plain text without invisible or direction-changing characters. */
export const identifier = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} must be at most ${max} characters`)
    .refine((s) => !LINE_CONTROL.test(s), `${what} must not contain control characters`)
    .refine((s) => !INVISIBLE.test(s), `${what} must not contain invisible or direction-changing characters`);

/**
 * An account's public display name: 1 to 40 characters once trimmed, single-line, no invisible or
 * direction-changing characters (@reelsmith/proto's rule; identity trims and stores it by the same
 * rule). The validator has already refused control characters and lone surrogates in every string
 * and normalised it to NFC.
 */
export const displayName = (what = 'The public name') =>
  z
    .string()
    .max(400, `${what} must be at most ${DISPLAY_NAME_MAX} characters`)
    .superRefine((s, ctx) => {
      const problem = displayNameProblem(s, what);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(`1 to ${DISPLAY_NAME_MAX} characters once trimmed; no control, zero-width or direction-changing characters`);

/** An e-mail address as typed: an identifier, at most 320 characters. */
export const email = (what = 'Email') => identifier(320, what);
