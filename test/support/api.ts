/**
 * A small typed client of the HTTP API for end-to-end tests: what the web app calls, in the same
 * shapes, plus reading the verification mail the embedded system writes to DATA_DIR/mail.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiErrorBody, JobRequest, JobStatus, SessionReply, UploadResult } from '../../web/src/api/types.js' with {
  'resolution-mode': 'import',
};

export type { JobRequest, JobStatus };

/**
 * A job request for the end-to-end specs: standard pacing, one-second fades, letterbox, no beat
 * mapping, Intelligence or title unless `overrides` say otherwise.
 */
export const jobRequestOf = (clips: string[], musicKey: string | undefined, overrides: Record<string, unknown> = {}) => ({
  media_files: clips,
  music_file: musicKey,
  pacing_preset: 'standard',
  enable_beat_mapping: false,
  enable_intelligence: false,
  title_config: { enabled: false, text: '', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' },
  enable_fades: true,
  fade_in_duration_sec: 1,
  fade_out_duration_sec: 1,
  enable_letterbox: true,
  ...overrides,
});

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export class Api {
  token = '';
  /**
   * This client's own address, sent as X-Forwarded-For: a product started with TRUST_PROXY (the
   * shared products) counts each Api as a different client, as people on their own connections
   * are, so the per-address sign-up and sign-in limits are not one budget for every spec of a run.
   * A product without TRUST_PROXY ignores the header.
   */
  readonly address = `10.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
  constructor(
    readonly base: string,
    private readonly dataDir: string,
  ) {}

  async call<T = Record<string, unknown>>(
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const isForm = body instanceof FormData;
    const send = () =>
      fetch(`${this.base}/api/v1${route}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(body && !isForm ? { 'content-type': 'application/json' } : {}),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          'x-forwarded-for': this.address,
          ...headers,
        },
        body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
      });
    // The specs of a lane share one process and so one pool of keep-alive connections: a
    // connection left idle by an earlier spec can be closed by the gateway (its keep-alive ends
    // after 72 s) just as the next request is written on it ("other side closed"). Once, that
    // request is sent again on a new connection, as a browser does.
    const res = await send().catch((e: unknown) => {
      if ((e as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw e;
      return send();
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Signs up, reads the code from the mail file, verifies; leaves the session token set. */
  async signUp(email: string, password = 'a-good-password'): Promise<void> {
    const r = await this.call('POST', '/auth/register', { email, password });
    if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`);
    const code = await this.mailCode(email);
    const v = await this.call<SessionReply>('POST', '/auth/verify-email', { email, code });
    if (v.status !== 200) throw new Error(`verify: ${v.status} ${JSON.stringify(v.body)}`);
    this.token = v.body.session_token;
  }

  async mailCode(email: string, timeoutMs = 10_000): Promise<string> {
    const dir = path.join(this.dataDir, 'mail');
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (fs.existsSync(dir)) {
        for (const f of fs.readdirSync(dir).sort().reverse()) {
          const text = fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, '');
          const m = /verification code is (\d{6})/.exec(text);
          if (text.includes(`To: ${email}`) && m) return m[1]!;
        }
      }
      if (Date.now() > end) throw new Error(`no verification mail for ${email}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async upload(file: string, name = path.basename(file)): Promise<Reply<UploadResult & Partial<ApiErrorBody>>> {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)]), name);
    return this.call('POST', '/uploads/file', form);
  }

  /** Buys the 1,000-credit pack ($40) with the sandbox's test card, as a user would; the confirm's status. */
  async buyThousandCredits(): Promise<number> {
    const intent = await this.call<{ payment_intent_id: string }>('POST', '/payments/create-intent', {
      type: 'credits',
      item_id: 'credits_1000',
      amount: 4000,
      currency: 'usd',
      payment_method: 'card',
    });
    if (intent.status !== 200) return intent.status;
    const card = { test_card: '4242 4242 4242 4242', test_expiry: '12/34', test_cvc: '123' };
    return (await this.call('POST', '/payments/confirm', { payment_intent_id: intent.body.payment_intent_id, ...card })).status;
  }

  async waitForStatus(jobId: string, done: (s: { status: string; progress: number }) => boolean, timeoutMs = 180_000): Promise<JobStatus> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.call<JobStatus>('GET', `/jobs/${jobId}/status`);
      if (r.status === 200 && done(r.body)) return r.body;
      if (Date.now() > end) throw new Error(`job ${jobId} still ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }
}
