import { z } from 'zod';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { plainSchema, serializerCompiler } from '../../src/transport/http/serializer';
import { errorBody, jobStatus, user } from '../../src/transport/http/schemas';

const compile = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' });
const zodCompile = (schema: z.ZodType) =>
  (zodSerializerCompiler as unknown as typeof serializerCompiler)({ schema, method: 'GET', url: '/x', httpStatus: '200' });

const me = {
  user: {
    id: 'u1',
    email: 'a@example.com',
    display_name: null,
    is_admin: false,
    is_guest: false,
    email_verified: true,
    credits: 30,
    subscription: { plan: 'free', status: 'active', next_billing: null, billing_cycle: 'monthly', cancel_at_period_end: false },
    last_free_use: '2026-11-01T10:00:00.000Z',
    daily_free_used: false,
    entitlements: {
      upload_cap_bytes: 1_000_000,
      music_cap_seconds: 300,
      library_selection_cap: 20,
      reel_cap_seconds: 180,
      unlimited: false,
      subscribed: false,
      messages: { upload: 'Too big "file"', music: 'm', selection: 's', insufficient: 'i \u2028 line', reel_length: 'r' },
    },
  },
};

describe('response serialisation', () => {
  it('writes what zod wrote for the API objects, nulls and escapes included', () => {
    const schema = z.object({ user });
    expect(compile(schema)(me)).toBe(zodCompile(schema)(me));
    const status = {
      job_id: 'j1',
      status: 'processing',
      message: 'Rendering (5%)',
      progress: 5,
      download_url: null,
      created_at: '2026-11-23T10:00:00.000Z',
    };
    expect(compile(jobStatus)(status)).toBe(zodCompile(jobStatus)(status));
    const done = { ...status, status: 'completed', progress: 100, download_url: 'https://x.example/a?b=1&c="2"' };
    expect(JSON.parse(compile(jobStatus)(done))).toEqual(done);
  });

  it('leaves out properties the schema does not declare (nothing internal leaks)', () => {
    const out = JSON.parse(compile(errorBody)({ detail: 'Nope', code: 'x', stack: 'at secret()', internal: { token: 't' } }));
    expect(out).toEqual({ detail: 'Nope', code: 'x' });
  });

  it('refuses a response missing a required property instead of sending half an object', () => {
    expect(() =>
      compile(jobStatus)({ job_id: 'j1', status: 'queued', progress: 0, download_url: null, created_at: '2026-11-23T10:00:00.000Z' }),
    ).toThrow(/message/);
  });

  it('leaves schemas with transforms, defaults or refinements to zod', () => {
    const withTransform = z.object({ n: z.number().transform((n) => n * 2) });
    const withDefault = z.object({ s: z.string().default('d') });
    const refined = z.object({ s: z.string().refine((s) => s.length > 2, 'too short') });
    expect(plainSchema(withTransform)).toBe(false);
    expect(plainSchema(withDefault)).toBe(false);
    expect(plainSchema(refined)).toBe(false);
    expect(plainSchema(z.object({ user }))).toBe(true);
    expect(compile(withDefault)({ s: 'x' })).toBe('{"s":"x"}');
    expect(() => compile(refined)({ s: 'a' })).toThrow();
  });
});
