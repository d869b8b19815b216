import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { displayNameProblem } from '@reelsmith/proto';
import { documentRoute, unstatedRefinements } from '../../src/transport/http/contract';
import {
  DISPLAY_NAME_RULE,
  EMAIL_RULE,
  LINE_RULE,
  TEXT_RULE,
  displayName,
  trimmedRule,
  wording,
} from '../../src/transport/http/input-text';

describe('the one rule: a request schema is what the document states', () => {
  it('refuses a refinement the document cannot state, anywhere in the schema', () => {
    const refined = z.object({ a: z.array(z.object({ b: z.string().refine((s) => s !== 'x') })) });
    expect(unstatedRefinements(refined)).toEqual(['a[].b: a refinement the document cannot state']);
    expect(unstatedRefinements(z.object({ a: z.string() }).superRefine(() => undefined))).toHaveLength(1);
  });

  it('lets through patterns, bounds, unions and checks that only word a pattern', () => {
    const exact = z.object({
      name: displayName(),
      n: z.number().int().min(0).max(9),
      pick: z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b'), v: z.string().regex(/^v$/) })]),
      worded: z
        .string()
        .check(wording<string>((s) => (s === 'x' ? 'no x' : null)))
        .regex(/^[^x]*$/),
    });
    expect(unstatedRefinements(exact)).toEqual([]);
  });

  it('fails a route at registration when its body has such a refinement', () => {
    const route = {
      method: 'POST',
      url: '/api/v1/x',
      schema: { body: z.object({ a: z.string().refine(() => true) }), response: { 200: z.object({}) } },
      handler: () => undefined,
    } as unknown as RouteOptions;
    expect(() => documentRoute(route)).toThrow('POST /api/v1/x: body a: a refinement the document cannot state');
  });

  it('lists the statuses the shell can answer', () => {
    const route = {
      method: 'POST',
      url: '/api/v1/things/:id',
      config: { access: 'admin', rateLimit: { max: 1, timeWindow: 1000 } },
      schema: { params: z.object({ id: z.uuid() }), body: z.object({}), response: { 200: z.object({}) } },
      handler: () => undefined,
    } as unknown as RouteOptions;
    documentRoute(route);
    const statuses = Object.keys((route.schema as { response: object }).response)
      .map(Number)
      .sort();
    expect(statuses).toEqual([200, 400, 401, 403, 413, 414, 429, 500, 503, 504]);
    expect((route.schema as { operationId: string }).operationId).toBe('postThingsById');
  });
});

describe('the text rules as patterns', () => {
  it('free text: line breaks and tabs yes, other control characters and lone surrogates no; pairs are one character', () => {
    expect(TEXT_RULE.test('two\nlines\tand 🙂')).toBe(true);
    for (const bad of ['\u0000', '\u001b', '\u007f', '\u0085', 'a\ud800', '\udfffa']) expect(TEXT_RULE.test(bad)).toBe(false);
    expect(new RegExp(TEXT_RULE.source, 'u').test('🙂')).toBe(true);
    expect(new RegExp(TEXT_RULE.source, 'u').test('a\ud800')).toBe(false);
    expect(LINE_RULE.test('a\nb')).toBe(false);
  });

  it('a display name: the pattern accepts exactly what identity accepts', () => {
    const cases = [
      'Ada',
      ' Ada ',
      'x'.repeat(40),
      ` ${'x'.repeat(40)} `,
      'x'.repeat(41),
      '',
      '   ',
      'a\u200bb',
      'a\u2028b',
      'Zoë',
      '🙂'.repeat(40),
    ];
    for (const c of cases) expect([c, DISPLAY_NAME_RULE.test(c)]).toEqual([c, displayNameProblem(c) === null]);
  });

  it("an e-mail address: identity's rule, trimmed, at most 254 characters", () => {
    for (const ok of ['a@b.co', ' a@b.co ', `${'x'.repeat(64)}@example.com`]) expect([ok, EMAIL_RULE.test(ok)]).toEqual([ok, true]);
    for (const bad of ['a@b.c', 'ab.co', 'a b@c.de', `${'x'.repeat(65)}@example.com`, `a@${'x'.repeat(250)}.com`, 'a\u200b@b.co', ''])
      expect([bad, EMAIL_RULE.test(bad)]).toEqual([bad, false]);
  });

  it('trimmed lengths: 10 to 5000 characters of a message, line breaks inside', () => {
    const message = trimmedRule(10, 5000, { multiline: true });
    expect(message.test('  0123456789  ')).toBe(true);
    expect(message.test('first line\nsecond')).toBe(true);
    expect(message.test('  012345678  ')).toBe(false);
    expect(message.test('x'.repeat(5001))).toBe(false);
  });
});
