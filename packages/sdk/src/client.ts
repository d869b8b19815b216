import type { paths } from './schema.gen.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The API's paths that have operation `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: infer O } ? ([O] extends [never] ? never : O extends undefined ? never : P) : never;
}[keyof paths];
type Op<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? NonNullable<O> : never;

type Content<T> = T extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? Content<NonNullable<B>> : never;
/** The JSON answer of an operation's success (200, 201 or 202). */
export type AnswerOf<P extends keyof paths, M extends Method> =
  Op<P, M> extends { responses: infer R }
    ? R extends { 200: infer A }
      ? Content<A>
      : R extends { 201: infer A }
        ? Content<A>
        : R extends { 202: infer A }
          ? Content<A>
          : unknown
    : never;
type Params<P extends keyof paths, M extends Method> = Op<P, M> extends { parameters: infer X } ? X : never;
type PathParams<P extends keyof paths, M extends Method> = Params<P, M> extends { path?: infer X } ? NonNullable<X> : never;
type QueryParams<P extends keyof paths, M extends Method> = Params<P, M> extends { query?: infer X } ? NonNullable<X> : never;

export interface RequestOptions<P extends keyof paths, M extends Method> {
  path?: PathParams<P, M>;
  query?: QueryParams<P, M>;
  body?: BodyOf<P, M> | FormData;
  /** Sent as the Idempotency-Key header (assemble, plan, upload): a retry never runs twice. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  /** The raw Response instead of parsed JSON (downloads). */
  raw?: boolean;
}

/** An API error: the HTTP status and the `{ detail, code }` body every error answers. */
export class ReelsmithError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'ReelsmithError';
  }
}

export interface ClientOptions {
  /** e.g. https://reelsmith.example.com (the API is under /api/v1). */
  baseUrl: string;
  /** An API key (rs_live_...) or a session token. */
  apiKey: string;
  /** Retries of a 429 or 503 (waiting its Retry-After) and, with an Idempotency-Key, of a network failure. */
  maxRetries?: number;
  fetch?: typeof fetch;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A typed client of the Reelsmith API: every path, body and answer comes from its OpenAPI document. */
export class ReelsmithClient {
  readonly baseUrl: string;
  private readonly fetcher: typeof fetch;
  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/$/, '');
    this.fetcher = opts.fetch ?? fetch;
  }

  async request<M extends Method, P extends PathsWith<M>>(method: M, path: P, o: RequestOptions<P, M> = {}): Promise<AnswerOf<P, M>> {
    let url = `${this.baseUrl}${String(path)}`;
    for (const [k, v] of Object.entries((o.path ?? {}) as Record<string, unknown>))
      url = url.replace(`{${k}}`, encodeURIComponent(String(v)));
    const q = Object.entries((o.query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (q.length) url += `?${new URLSearchParams(q.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, ...o.headers };
    if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
    const isForm = typeof FormData !== 'undefined' && o.body instanceof FormData;
    if (o.body !== undefined && !isForm) headers['content-type'] = 'application/json';
    const body = o.body === undefined ? undefined : isForm ? (o.body as FormData) : JSON.stringify(o.body);
    const maxRetries = this.opts.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetcher(url, { method: method.toUpperCase(), headers, body, redirect: o.raw ? 'follow' : 'manual' });
      } catch (e) {
        // Safe to send again only when the server would not run it twice.
        if (attempt < maxRetries && (o.idempotencyKey || method === 'get')) {
          await sleep(500 * 2 ** attempt);
          continue;
        }
        throw e;
      }
      if ((res.status === 429 || res.status === 503) && attempt < maxRetries) {
        await sleep(Math.min(60, Number(res.headers.get('retry-after')) || 2 ** attempt) * 1000);
        continue;
      }
      if (res.status >= 400) {
        const e = (await res.json().catch(() => ({}))) as { detail?: string; code?: string };
        const retry = Number(res.headers.get('retry-after'));
        throw new ReelsmithError(
          res.status,
          e.code ?? 'error',
          e.detail ?? res.statusText,
          Number.isFinite(retry) && retry > 0 ? retry : undefined,
        );
      }
      if (o.raw) return res as AnswerOf<P, M>;
      return (res.status === 204 ? undefined : await res.json()) as AnswerOf<P, M>;
    }
  }

  get<P extends PathsWith<'get'>>(path: P, o?: RequestOptions<P, 'get'>) {
    return this.request('get', path, o);
  }
  post<P extends PathsWith<'post'>>(path: P, o?: RequestOptions<P, 'post'>) {
    return this.request('post', path, o);
  }
  delete<P extends PathsWith<'delete'>>(path: P, o?: RequestOptions<P, 'delete'>) {
    return this.request('delete', path, o);
  }
}
