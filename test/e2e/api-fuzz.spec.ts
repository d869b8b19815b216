import fc from 'fast-check';
import { arbitraryOf, asParameter, operationsOf, type Doc, type Operation } from '../../services/gateway/test/support/openapi';
import { Api } from '../support/api';
import { sharedSystem, SHARED_START_MS, type SharedSystem } from '../support/shared-system';

/**
 * Schemathesis-style, against the whole product as `npm start` runs it (real services, each
 * service's PostgreSQL database, NATS, local storage): every operation of the served OpenAPI document gets
 * input the document accepts, as a signed-in user, and each answer must be
 *  - not a 5xx;
 *  - a status the document lists for the operation;
 *  - of a media type the document lists for that status;
 *  - never a 400 for a reason the document does not state.
 * The gateway's medium test checks the same against stand-in services; this one finds what only
 * the real services do (a gRPC int32, a database constraint, a real file check).
 *
 * Seeded and short (FUZZ_SEED, FUZZ_RUNS cases per operation for another or a longer run).
 * Operations that end the caller's own session or account are left out, since every later case
 * would then be a 401: they have their own end-to-end and medium tests.
 */

const ENDS_THE_SESSION = new Set([
  'POST /api/v1/auth/logout',
  'POST /api/v1/auth/logout-all',
  'POST /api/v1/auth/change-password',
  'POST /api/v1/auth/delete-account',
]);

/**
 * 400s for a rule the document states in words, each a check the schema cannot make: what the
 * product knows (a mailed code, a reset link, the catalogue, the webhook settings), a file's
 * content, or a relation between values (taps that increase, a URL that parses).
 */
const STATED_400 = new Set([
  'no_such_pack', // the amount must be a pack's price in the catalogue
  'invalid_argument', // an unknown credit pack or plan id (the catalogue)
  'invalid_code', // the code mailed to that address
  'invalid_reset_token', // the token of a reset link that is live
  'webhook_unverified', // a payment provider's signed call, when that provider is configured
  'invalid_webhook_url', // an https URL that parses
  'unsupported_format', // uploads: the file's name
  'unsupported_media', // uploads: the file's content
  'not_multipart',
  'no_file',
  'invalid_taps', // tap times that increase
  'no_media', // a job needs a clip, uploaded or from the library (either list may be empty, not both)
]);

interface Answer {
  status: number;
  type: string;
  body: string;
}

async function send(base: string, method: string, url: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  const payload = body === undefined || typeof body === 'string' ? body : new Uint8Array(body);
  const res = await fetch(`${base}${url}`, { method, headers, body: payload, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, type: (res.headers.get('content-type') ?? '').split(';')[0]!.trim(), body: text };
}

describe('the started product answers generated input as its OpenAPI document says', () => {
  let sys: SharedSystem;
  let api: Api;
  let doc: Doc;

  beforeAll(async () => {
    sys = await sharedSystem();
    api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`fuzz.${Date.now()}@example.com`);
    doc = (await api.call('GET', '/openapi.json')).body;
  }, SHARED_START_MS + 60_000);

  it('no 5xx, no undocumented status or media type, no unstated 400', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? 7);
    const runs = Number(process.env['FUZZ_RUNS'] ?? 4);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const ops = operationsOf(doc).filter((o) => !ENDS_THE_SESSION.has(`${o.method} ${o.url}`));
    const requestOf = (o: Operation) => {
      const parts: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of o.parameters.filter((x) => x.in === 'path' || x.in === 'query'))
        parts[`${p.in}:${p.name}`] =
          p.required || p.in === 'path' ? arbitraryOf(p.schema, doc) : fc.option(arbitraryOf(p.schema, doc), { nil: undefined });
      const json = o.body?.['application/json'];
      if (json && !o.url.includes('/webhooks/')) parts['body'] = arbitraryOf(json, doc);
      return fc.record(parts);
    };
    for (const [i, o] of ops.entries())
      await fc.assert(
        fc.asyncProperty(requestOf(o), async (values) => {
          let url = o.url;
          const query = new URLSearchParams();
          for (const [k, v] of Object.entries(values)) {
            if (v === undefined || k === 'body') continue;
            const [where, name] = k.split(':') as [string, string];
            if (where === 'path')
              url = url.replace(
                `{${name}}`,
                name === '*' ? String(v).split('/').map(encodeURIComponent).join('/') : encodeURIComponent(asParameter(v)),
              );
            else query.set(name, asParameter(v));
          }
          const headers: Record<string, string> = { authorization: `Bearer ${api.token}` };
          let payload: string | Buffer | undefined;
          if (o.body?.['multipart/form-data']) {
            headers['content-type'] = 'multipart/form-data; boundary=fcb';
            payload = Buffer.concat([
              Buffer.from('--fcb\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\n\r\n'),
              Buffer.alloc(200, 7),
              Buffer.from('\r\n--fcb--\r\n'),
            ]);
          } else if (o.body) {
            headers['content-type'] = 'application/json';
            payload = JSON.stringify(values['body'] ?? {});
          }
          const q = query.toString();
          const res = await send(sys.baseUrl, o.method, q ? `${url}?${q}` : url, headers, payload);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const shown = `${o.method} ${o.url} -> ${res.status} ${res.body.slice(0, 160)} for ${JSON.stringify(values).slice(0, 300)}`;
          let code: string | undefined;
          try {
            code = res.status >= 400 ? (JSON.parse(res.body || '{}') as { code?: string }).code : undefined;
          } catch {
            code = undefined;
          }
          if (res.status >= 500) failures.push(`5xx: ${shown}`);
          const types = o.responses[String(res.status)];
          if (!types) failures.push(`undocumented status: ${shown}`);
          else if (res.body.length && !types.includes(res.type))
            failures.push(`undocumented media type ${res.type} (documented: ${types.join(', ')}): ${shown}`);
          if (res.status === 400 && !STATED_400.has(code ?? '')) failures.push(`400 to input the document accepts: ${shown}`);
        }),
        { numRuns: runs, seed: seed + i },
      );
    if (failures.length)
      throw new Error(
        `seed ${seed}: ${failures.length} failures (statuses ${JSON.stringify([...statuses])}), first ones:\n${[...new Set(failures)].slice(0, 20).join('\n')}`,
      );
    // The run reached real answers, not only refusals.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
  }, 300_000);
});
