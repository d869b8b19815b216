import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Bus, LocalObjectStore, createLogger, createMetrics, openDatabase, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, startSmtpStandIn, tempDir, waitFor } from '@reelsmith/kit/testing';
import type { SmtpStandIn, TestDatabase } from '@reelsmith/kit/testing';
import { wire as wireIdentity } from '../../services/identity/src/app';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { SESSION_CACHE_DEFAULTS, SessionVerifier } from '../../services/gateway/src/domain/sessions';
import { followRevocations, verifyWithIdentity } from '../../services/gateway/src/repositories/sessions';
import { decodeQuotedPrintable, gatewayPeers, healthyReport, listenLocal, startService } from '../support/in-process';

const ADMIN = 'boss@reelsmith.test';
const TOKEN_SECRET = 'test-token-secret-0123456789abcdef';

/** Mail as received by a real SMTP server, decoded from quoted-printable. */
interface Mail {
  to: string;
  raw: string;
}
const codeOf = (m: Mail) => /verification code is (\d{6})/.exec(m.raw)?.[1];
const linkOf = (m: Mail) => /(http:\/\/[^\s"<]+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(m.raw)?.[1];

describe('accounts through the gateway: identity + billing on PostgreSQL, mail over SMTP', () => {
  const dbs: TestDatabase[] = [];
  const services: RunningService[] = [];
  const data = tempDir('accounts');
  const logs: string[] = [];
  const mails: Mail[] = [];
  let smtp: SmtpStandIn;
  let app: FastifyInstance;
  let peers: Peers;
  let gatewayBus: Bus | undefined;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtpStandIn((m) => mails.push({ to: m.to, raw: decodeQuotedPrintable(m.raw) }));
    const smtpPort = smtp.port;

    const capture = new Writable({
      write(chunk: Buffer, _e, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    const log = createLogger({ service: 'test', level: 'debug', destination: capture as never });
    const prefix = natsPrefix();
    const common = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, LOG_LEVEL: 'debug' };
    const identity = await startService({
      name: 'identity',
      schema: identitySchema,
      wire: wireIdentity,
      env: {
        ...common,
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        PRIVILEGED_EMAILS: ADMIN,
        TOKEN_SECRET,
        PUBLIC_URL: 'http://localhost:8080',
      },
      outbox: true,
      log,
    });
    const billing = await startService({ name: 'billing', schema: billingSchema, wire: wireBilling, env: common, outbox: true, log });
    for (const s of [identity, billing]) {
      services.push(s.running);
      dbs.push(s.db);
    }
    // Media and jobs are not used here; their channels connect lazily, so never.
    peers = gatewayPeers({ identity: identity.address, billing: billing.address });
    // The gateway's session cache follows identity's sessions.revoked, as in production.
    const sessions = new SessionVerifier(verifyWithIdentity(peers), SESSION_CACHE_DEFAULTS);
    gatewayBus = await Bus.connect({ url: TEST_NATS_URL, name: 'gateway', log, prefix });
    followRevocations(gatewayBus, sessions, log);
    await gatewayBus.flush();
    app = await buildHttpApp({
      log,
      metrics: createMetrics('gateway'),
      webDist: data.dir,
      health: healthyReport,
      peers,
      sessions,
      trustProxy: true,
      // Storage only so the public routes (the contact form among them) are served.
      store: new LocalObjectStore({
        root: path.join(data.dir, 'objects'),
        signingSecret: 's'.repeat(32),
        publicUrl: 'http://localhost:8080',
      }),
    });
    base = `${await listenLocal(app)}/api/v1`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    await gatewayBus?.close();
    for (const s of services) await s.stop();
    await smtp.close();
    for (const d of dbs) await d.drop();
    data.remove();
  });

  let ipCounter = 0;
  /** Each test speaks from its own address, so per-IP limits of one test do not touch another. */
  const call = (method: string, route: string, body?: unknown, token?: string, ip = `10.9.0.${++ipCounter % 250}`) =>
    fetch(`${base}${route}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'x-forwarded-for': ip,
      },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as Record<string, unknown> }));

  const uniqueEmail = (label: string) => `${label}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@Example.com`;
  const mailFor = (email: string, n = 1) =>
    waitFor(
      () => (mails.filter((m) => m.to === email.toLowerCase()).length >= n ? mails.filter((m) => m.to === email.toLowerCase()) : null),
      10_000,
    );

  async function registerAndVerifyByCode(email: string, password = 'correct horse') {
    expect((await call('POST', '/auth/register', { email, password })).status).toBe(201);
    const [mail] = await mailFor(email);
    const v = await call('POST', '/auth/verify-email', { email, code: codeOf(mail!) });
    expect(v.status).toBe(200);
    return v.body.session_token as string;
  }

  it('register -> code by SMTP -> verify -> me -> logout -> the token is refused', async () => {
    const email = uniqueEmail('alice');
    const reg = await call('POST', '/auth/register', { email, password: 'correct horse' });
    expect(reg).toEqual({
      status: 201,
      body: { message: 'Registration successful. Check your email for a verification code.', email: email.toLowerCase() },
    });
    const [mail] = await mailFor(email);
    expect(codeOf(mail!)).toMatch(/^\d{6}$/);

    const verified = await call('POST', '/auth/verify-email', { email, code: codeOf(mail!) });
    expect(verified.status).toBe(200);
    const token = verified.body.session_token as string;
    expect(token.length).toBeGreaterThanOrEqual(22); // >= 128 bits
    expect(verified.body.user).toMatchObject({
      email: email.toLowerCase(),
      is_admin: false,
      email_verified: true,
      credits: 0,
      daily_free_used: false,
    });

    const me = await call('GET', '/auth/me', undefined, token);
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      email: email.toLowerCase(),
      subscription: { plan: 'free', status: 'inactive', next_billing: null, billing_cycle: null, cancel_at_period_end: false },
      last_free_use: null,
    });

    // The code worked once; so did the link in the same message.
    expect((await call('POST', '/auth/verify-email', { email, code: codeOf(mail!) })).status).toBe(400);
    expect((await call('POST', '/auth/verify-email', { token: new URL(linkOf(mail!)!).searchParams.get('token') })).status).toBe(400);

    expect((await call('POST', '/auth/logout', undefined, token)).status).toBe(200);
    const after = await call('GET', '/auth/me', undefined, token);
    expect(after).toEqual({ status: 401, body: { detail: 'Your session has expired. Please sign in again.', code: 'session_expired' } });
  });

  it('forgot password -> mail with a 1-hour single-use /reset-password link -> new password; every session ends; no enumeration', async () => {
    const email = uniqueEmail('forgetful');
    const first = await registerAndVerifyByCode(email, 'old password');
    const second = (await call('POST', '/auth/login', { email, password: 'old password' })).body.session_token as string;
    expect((await call('GET', '/auth/me', undefined, first)).status).toBe(200); // cached in the gateway now

    const known = await call('POST', '/auth/forgot-password', { email });
    const unknown = await call('POST', '/auth/forgot-password', { email: uniqueEmail('nobody') });
    expect(known).toEqual(unknown); // the same answer whether or not the e-mail exists
    expect(known).toEqual({
      status: 200,
      body: { message: 'If an account exists for that email, a link to reset its password is on its way.' },
    });
    const mail = (await mailFor(email, 2)).at(-1)!;
    expect(mail.raw).toContain('expires in 1 hour');
    const link = new URL(/(http:\/\/[^\s"<]+\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(mail.raw)![1]!);
    expect(link.pathname).toBe('/reset-password');
    const token = link.searchParams.get('token')!;

    const reset = await call('POST', '/auth/reset-password', { token, password: 'new password' });
    expect(reset).toEqual({
      status: 200,
      body: { message: 'Your password has been changed. Please sign in with your new password.', email: email.toLowerCase() },
    });
    // Every session ended, the one cached in the gateway included.
    await waitFor(async () => (await call('GET', '/auth/me', undefined, first)).status === 401, 1000, 20);
    expect((await call('GET', '/auth/me', undefined, second)).status).toBe(401);
    // Single use.
    expect(await call('POST', '/auth/reset-password', { token, password: 'third password' })).toEqual({
      status: 400,
      body: {
        detail: 'This password reset link is invalid, has already been used, or has expired. Please ask for a new one.',
        code: 'invalid_reset_token',
      },
    });
    expect((await call('POST', '/auth/login', { email, password: 'old password' })).status).toBe(401);
    expect((await call('POST', '/auth/login', { email, password: 'new password' })).status).toBe(200);
  });

  it('change password (current + new) keeps this session and ends the others; sign out everywhere ends all', async () => {
    const email = uniqueEmail('changer');
    const mine = await registerAndVerifyByCode(email, 'old password');
    const other = (await call('POST', '/auth/login', { email, password: 'old password' })).body.session_token as string;
    expect((await call('GET', '/auth/me', undefined, other)).status).toBe(200);

    const wrong = await call('POST', '/auth/change-password', { current_password: 'nope', new_password: 'new password' }, mine);
    expect(wrong).toEqual({ status: 403, body: { detail: 'The password is not correct.', code: 'wrong_password' } });
    const ok = await call('POST', '/auth/change-password', { current_password: 'old password', new_password: 'new password' }, mine);
    expect(ok.status).toBe(200);
    expect((await call('GET', '/auth/me', undefined, mine)).status).toBe(200);
    expect((await call('GET', '/auth/me', undefined, other)).status).toBe(401);

    const third = (await call('POST', '/auth/login', { email, password: 'new password' })).body.session_token as string;
    expect((await call('POST', '/auth/logout-all', undefined, mine)).status).toBe(200);
    for (const t of [mine, third]) expect((await call('GET', '/auth/me', undefined, t)).status).toBe(401);
  });

  it('the lockout after 10 failed sign-ins offers the reset link', async () => {
    const email = uniqueEmail('locked');
    await registerAndVerifyByCode(email, 'right password');
    for (let i = 0; i < 10; i++) await call('POST', '/auth/login', { email, password: 'wrong password' });
    const locked = await call('POST', '/auth/login', { email, password: 'right password' });
    expect(locked.status).toBe(429);
    expect(locked.body.detail).toContain('Forgot password?');
  });

  it('verifies by the link from the mail, once; then login works with the password', async () => {
    const email = uniqueEmail('bob');
    await call('POST', '/auth/register', { email, password: 'hunter22' });
    const [mail] = await mailFor(email);
    const link = new URL(linkOf(mail!)!);
    expect(link.pathname).toBe('/verify-email');
    const token = link.searchParams.get('token')!;
    const first = await call('POST', '/auth/verify-email', { token });
    expect(first.status).toBe(200);
    expect((first.body.user as { email: string }).email).toBe(email.toLowerCase());
    const again = await call('POST', '/auth/verify-email', { token });
    expect(again).toEqual({
      status: 400,
      body: { detail: 'This verification link is invalid, has already been used, or has expired.', code: 'invalid_token' },
    });

    const login = await call('POST', '/auth/login', { email: email.toUpperCase(), password: 'hunter22' });
    expect(login.status).toBe(200);
    expect((await call('GET', '/auth/me', undefined, login.body.session_token as string)).status).toBe(200);
  });

  it('refuses an expired link', async () => {
    const email = uniqueEmail('late');
    await call('POST', '/auth/register', { email, password: 'hunter22' });
    const [mail] = await mailFor(email);
    const db = await openDatabase({ url: dbs[0]!.url, pgliteDir: '' });
    await db.query("update email_verifications set expires_at = now() - interval '1 second'");
    await db.close();
    const res = await call('POST', '/auth/verify-email', { token: new URL(linkOf(mail!)!).searchParams.get('token') });
    expect(res.status).toBe(400);
    expect((await call('POST', '/auth/verify-email', { email, code: codeOf(mail!) })).status).toBe(400);
  });

  it('answers a wrong password and an unknown e-mail the same way, and stops an unverified account with a resend path', async () => {
    const email = uniqueEmail('carol');
    await registerAndVerifyByCode(email, 'right-password');
    const wrong = await call('POST', '/auth/login', { email, password: 'wrong-password' });
    const unknown = await call('POST', '/auth/login', { email: uniqueEmail('nobody'), password: 'wrong-password' });
    expect(wrong).toEqual({ status: 401, body: { detail: 'Invalid email or password.', code: 'invalid_credentials' } });
    expect(unknown).toEqual(wrong);

    // Registering a taken e-mail answers exactly like a new one.
    const dup = await call('POST', '/auth/register', { email, password: 'whatever1' });
    const fresh = await call('POST', '/auth/register', { email: uniqueEmail('dave'), password: 'whatever1' });
    expect(dup.status).toBe(fresh.status);
    expect(Object.keys(dup.body)).toEqual(Object.keys(fresh.body));

    const pending = uniqueEmail('erin');
    await call('POST', '/auth/register', { email: pending, password: 'hunter22' });
    const blocked = await call('POST', '/auth/login', { email: pending, password: 'hunter22' });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ code: 'email_not_verified' });
    expect(blocked.body.detail).toContain('verify your email');
    expect((await call('POST', '/auth/resend-verification', { email: pending })).status).toBe(200);
    const both = await mailFor(pending, 2);
    // The new code works; the old one was replaced.
    expect((await call('POST', '/auth/verify-email', { email: pending, code: codeOf(both[0]!) })).status).toBe(400);
    expect((await call('POST', '/auth/verify-email', { email: pending, code: codeOf(both[1]!) })).status).toBe(200);
  });

  it('validates sign-up input with the spec messages', async () => {
    const short = await call('POST', '/auth/register', { email: uniqueEmail('x'), password: '12345' });
    expect(short).toEqual({ status: 400, body: { detail: 'Password must be at least 6 characters', code: 'password_too_short' } });
    expect((await call('POST', '/auth/register', { email: 'not-an-email', password: '123456' })).body).toMatchObject({
      code: 'invalid_email',
    });
    expect((await call('POST', '/auth/register', { email: 'a@b.co' })).status).toBe(400);
  });

  it('answers 400, never 500, to a NUL in an e-mail and to a body nested thousands of levels deep', async () => {
    for (const route of ['/auth/register', '/auth/login']) {
      const r = await call('POST', route, { email: 'nul\u0000@example.com', password: '123456' });
      expect(r.status).toBe(400);
      expect(String(r.body.detail)).toContain('control characters');
    }
    expect((await call('POST', '/auth/resend-verification', { email: 'a\u0000@example.com' })).status).toBe(400);
    expect((await call('POST', '/auth/verify-email', { email: 'a\u0000@example.com', code: '123456' })).status).toBe(400);
    const deep = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.1.1' },
      body: '['.repeat(200_000) + ']'.repeat(200_000),
    });
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { detail: string }).detail).toContain('nested too deeply');
  });

  it('gives 429 to the 11th rapid login for one account, whatever the address', async () => {
    const email = uniqueEmail('frank');
    await registerAndVerifyByCode(email, 'hunter22');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await call('POST', '/auth/login', { email, password: i % 2 ? 'hunter22' : 'nope-nope' })).status);
    expect(statuses.slice(0, 10).every((s) => s === 200 || s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const last = await call('POST', '/auth/login', { email, password: 'hunter22' });
    expect(last.body).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('Forgot password?') as string });
  });

  it('stores Argon2id hashes and no token, code or password in clear, in the database or the logs', async () => {
    const email = uniqueEmail('grace');
    const password = 'my-secret-pass-42';
    await call('POST', '/auth/register', { email, password });
    const [mail] = await mailFor(email);
    const linkToken = new URL(linkOf(mail!)!).searchParams.get('token')!;
    const v = await call('POST', '/auth/verify-email', { email, code: codeOf(mail!) });
    const session = v.body.session_token as string;

    const db = await openDatabase({ url: dbs[0]!.url, pgliteDir: '' });
    const [user] = await db.query<{ password_hash: string }>('select password_hash from users where email = $1', [email.toLowerCase()]);
    expect(user!.password_hash).toMatch(/^\$argon2id\$v=19\$/);
    const dump = JSON.stringify(
      await Promise.all(['users', 'sessions', 'email_verifications', 'outbox', 'rate_limits'].map((t) => db.query(`select * from ${t}`))),
    );
    await db.close();
    for (const secret of [password, session, linkToken, codeOf(mail!)!]) {
      expect(dump).not.toContain(secret);
      expect(logs.join('')).not.toContain(secret);
    }
  });

  /** Identity's decision, as the gateway passes it on to billing with each call about the user. */
  const unlimited = async (token: string) => (await peers.identity.authenticate({ sessionToken: token })).user!.unlimited;

  it('refuses every admin route to a non-admin (403) and an anonymous caller (401)', async () => {
    const token = await registerAndVerifyByCode(uniqueEmail('henry'));
    expect(await unlimited(token)).toBe(false);
    expect(app.adminRoutes.length).toBeGreaterThan(0);
    for (const r of app.adminRoutes) {
      const url = r.url.replace('/api/v1', '').replace(/:(\w+)/g, 'x');
      const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : {};
      expect([r.method, r.url, (await call(r.method, url, body, token)).status]).toEqual([r.method, r.url, 403]);
      expect([r.method, r.url, (await call(r.method, url, body)).status]).toEqual([r.method, r.url, 401]);
    }
  });

  it('lets the privileged account toggle the guest pass; the guest logs in without admin rights until disabled', async () => {
    const admin = await registerAndVerifyByCode(ADMIN);
    expect(((await call('GET', '/auth/me', undefined, admin)).body.user as { is_admin: boolean }).is_admin).toBe(true);
    expect(await unlimited(admin)).toBe(true);
    expect((await call('GET', '/admin/guest-pass', undefined, admin)).body).toMatchObject({ enabled: false });

    const on = await call('POST', '/admin/guest-pass', { enabled: true }, admin);
    expect(on.body).toMatchObject({ enabled: true, email: 'guest@reelsmith.local' });
    const password = on.body.password as string;
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect((await call('GET', '/admin/guest-pass', undefined, admin)).body).toEqual({ enabled: true, email: 'guest@reelsmith.local' });

    const guest = await call('POST', '/auth/login', { email: 'guest@reelsmith.local', password });
    expect(guest.status).toBe(200);
    expect(guest.body.user).toMatchObject({ is_admin: false, is_guest: true, subscription: { plan: 'corporate', status: 'active' } });
    const guestToken = guest.body.session_token as string;
    expect(await unlimited(guestToken)).toBe(true); // enterprise access: no credit limit
    expect((await call('GET', '/admin/guest-pass', undefined, guestToken)).status).toBe(403);

    // Rotating gives a new password and ends the old sessions.
    const rotated = await call('POST', '/admin/guest-pass', { enabled: true }, admin);
    expect(rotated.body.password).not.toBe(password);
    expect((await call('GET', '/auth/me', undefined, guestToken)).status).toBe(401);
    expect((await call('POST', '/auth/login', { email: 'guest@reelsmith.local', password })).status).toBe(401);

    const again = await call('POST', '/auth/login', { email: 'guest@reelsmith.local', password: rotated.body.password as string });
    expect(again.status).toBe(200);
    expect((await call('POST', '/admin/guest-pass', { enabled: false }, admin)).body).toEqual({
      enabled: false,
      email: 'guest@reelsmith.local',
    });
    expect((await call('GET', '/auth/me', undefined, again.body.session_token as string)).status).toBe(401);
    expect((await call('POST', '/auth/login', { email: 'guest@reelsmith.local', password: rotated.body.password as string })).status).toBe(
      401,
    );
  });

  it("refuses sign-up at the guest account's reserved domain, in any case, with a clear 400 and no mail", async () => {
    for (const email of ['guest@reelsmith.local', 'GUEST@REELSMITH.LOCAL', 'Guest@ReelSmith.Local', 'someone.else@reelsmith.local']) {
      const res = await call('POST', '/auth/register', { email, password: 'squatter-pw' });
      expect([email, res.status, res.body.code]).toEqual([email, 400, 'reserved_email']);
      expect(String(res.body.detail)).toContain('reelsmith.local');
    }
    // Nothing was stored, so nothing can sign in there.
    const login = await call('POST', '/auth/login', { email: 'someone.else@reelsmith.local', password: 'squatter-pw' });
    expect(login.status).toBe(401);
    expect(mails.filter((m) => m.to.endsWith('@reelsmith.local'))).toEqual([]);
  });
  it("the contact form's honeypot: a filled hidden field gets the same thank-you, and is neither stored nor mailed", async () => {
    const marker = `hp${Date.now()}`;
    const form = { name: 'Visitor', email: uniqueEmail('contact'), topic: 'Feedback' };
    const bot = await call('POST', '/contact', { ...form, message: `bot ${marker}`, website: 'http://spam.example' });
    const human = await call('POST', '/contact', { ...form, message: `human ${marker}` });
    expect(bot.status).toBe(200);
    expect(bot.body).toEqual(human.body);
    await waitFor(() => (mails.some((m) => m.raw.includes(`human ${marker}`)) ? true : null), 10_000);
    expect(mails.some((m) => m.raw.includes(`bot ${marker}`))).toBe(false);
    const inbox = (await peers.identity.listContactMessages({ limit: 200, offset: 0 })).messages.map((m) => m.message);
    expect(inbox).toContain(`human ${marker}`);
    expect(inbox).not.toContain(`bot ${marker}`);
  });
});
