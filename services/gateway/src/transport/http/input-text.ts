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
 *
 * The rule is also the OpenAPI document's: every request string there carries it as its
 * `pattern` (TEXT_RULE, or a stricter rule of its own such as LINE_RULE), written from these same
 * regular expressions (see contract.ts). Each counts a character as a code point, so it reads the
 * same in JavaScript with or without the `u` flag and in other regex dialects.
 */
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DISPLAY_NAME_MAX, displayNameProblem } from '@reelsmith/proto';
import { mirrored } from './errors.js';

// Character classes of the rules, as regex source (escapes, so the document's patterns are plain ASCII).
/** Every C0 and C1 control character. */
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f';
/** The control characters free text may not hold: all but tab, line feed and carriage return. */
const TEXT_CONTROLS = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
/** Bidirectional controls (embeddings, overrides, isolates, marks) and zero-width characters. */
const INVISIBLES = '\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
/** The line and paragraph separators. */
const SEPARATORS = '\\u2028\\u2029';
/** The white space String.prototype.trim removes that is not refused anyway (controls, separators, invisibles). */
const SPACES = ' \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';
const SURROGATES = '\\ud800-\\udfff';
const PAIR = '[\\ud800-\\udbff][\\udc00-\\udfff]';
/** One character (a code point, never half of one) outside `excluded`. */
const charOutside = (excluded: string) => `(?:[^${excluded}${SURROGATES}]|${PAIR})`;

/** Free text: no control character but tab, line feed and carriage return; no lone surrogate. */
export const TEXT_RULE = new RegExp(`^${charOutside(TEXT_CONTROLS)}*$`);
/** A single line: no control character at all; no lone surrogate. */
export const LINE_RULE = new RegExp(`^${charOutside(CONTROLS)}*$`);
/** An identifier: a single line without invisible or direction-changing characters. */
export const IDENTIFIER_RULE = new RegExp(`^${charOutside(CONTROLS + INVISIBLES)}*$`);

/**
 * Text of `min` to `max` characters once trimmed (String.prototype.trim: the services trim what
 * they store), with any white space around it: a single line by default, or free text (line
 * breaks and tabs inside) with `multiline`. Refuses what the line or text rule refuses, lone
 * surrogates, and `refused` (regex class source).
 */
export const trimmedRule = (min: number, max: number, opts: { multiline?: boolean; refused?: string } = {}) => {
  const refused = (opts.multiline ? TEXT_CONTROLS : CONTROLS + SEPARATORS) + (opts.refused ?? '');
  // What trim removes that the rule lets through.
  const space = opts.multiline ? `${SPACES}\\t\\n\\r${SEPARATORS}\\ufeff` : opts.refused?.includes('\\ufeff') ? SPACES : `${SPACES}\\ufeff`;
  const any = charOutside(refused);
  const visible = charOutside(refused + space);
  const inner = min <= 1 ? `${visible}(?:${any}{0,${max - 2}}${visible})?` : `${visible}${any}{${min - 2},${max - 2}}${visible}`;
  return new RegExp(`^[${space}]*${inner}[${space}]*$`);
};

/** identity's rule for an e-mail address (trimmed: local part of 1-64, a domain with a dot, at most 254 in all). */
export const EMAIL_RULE = new RegExp(
  `^[${SPACES}]*(?=[^\\s]{1,254}[${SPACES}]*$)${charOutside(`\\s@${CONTROLS}${INVISIBLES}`)}{1,64}@${charOutside(`\\s@${CONTROLS}${INVISIBLES}`)}+\\.${charOutside(`\\s@${CONTROLS}${INVISIBLES}`)}{2,}[${SPACES}]*$`,
);

export const invalidText = (what: string, why: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, `${what} ${why}`, 'invalid_text');

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Printable ASCII only: within the rule and already in NFC (most ids, numbers and names). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The rule for one string; answers it normalised (unless `keepForm`), or throws a 400 naming `what`. */
export function cleanText(s: string, what: string, keepForm = false): string {
  if (PRINTABLE_ASCII.test(s)) return s;
  if (!TEXT_RULE.test(s)) throw invalidText(what, CONTROL.test(s) ? 'must not contain control characters' : 'must be valid Unicode text');
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

const INVISIBLE = new RegExp(`[${INVISIBLES}]`);
/** Which part of the identifier rule `s` breaks, worded for `what`. */
const identifierProblem = (s: string, what: string) =>
  LINE_CONTROL.test(s)
    ? `${what} must not contain control characters`
    : INVISIBLE.test(s)
      ? `${what} must not contain invisible or direction-changing characters`
      : null;

/**
 * A check that only words the message of a rule the schema states anyway (a pattern): zod runs it
 * first and stops there when it fails, so the caller reads which part of the rule was broken.
 * contract.ts lets such checks through; any other custom refinement of a request is refused,
 * because the OpenAPI document could not state it.
 */
export const WORDING = new WeakSet<object>();
export function wording<T>(fn: (value: T) => string | null) {
  const check = z.superRefine<T>((value, ctx) => {
    const problem = fn(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
  });
  WORDING.add(check);
  return check;
}

/** An identifier (a key, an id): single-line plain text without invisible or direction-changing characters. */
export const identifier = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} must be at most ${max} characters`)
    .check(wording<string>((s) => identifierProblem(s, what)))
    .regex(IDENTIFIER_RULE, `${what} must not contain control, invisible or direction-changing characters`);

/**
 * An account's public display name: 1 to 40 characters once trimmed, single-line, no invisible or
 * direction-changing characters (@reelsmith/proto's rule; identity trims and stores it by the same
 * rule). The validator has already refused control characters and lone surrogates in every string
 * and normalised it to NFC. The pattern states the whole rule; the wording check says which part failed.
 */
export const DISPLAY_NAME_RULE = trimmedRule(1, DISPLAY_NAME_MAX, { refused: INVISIBLES });
export const displayName = (what = 'The public name') =>
  z
    .string()
    .check(wording<string>((s) => displayNameProblem(s, what)))
    .regex(DISPLAY_NAME_RULE, `${what} must be 1 to ${DISPLAY_NAME_MAX} visible characters`)
    .meta({
      description: `1 to ${DISPLAY_NAME_MAX} characters once trimmed; no control, zero-width or direction-changing characters`,
      examples: ['Ada Lovelace'],
    });

/**
 * An e-mail address as typed: at most 320 characters, identity's rule for its form (white space
 * around it is trimmed there), no invisible characters.
 */
export const email = (what = 'Email') =>
  z
    .string()
    .max(320, `${what} must be at most 320 characters`)
    .check(wording<string>((s) => identifierProblem(s, what)))
    .regex(EMAIL_RULE, mirrored('Please enter a valid email address.', 'invalid_email'))
    .meta({ description: 'An e-mail address (name@domain.tld)', examples: ['ada@example.com'] });
