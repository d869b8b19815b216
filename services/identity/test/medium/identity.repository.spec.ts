import crypto from 'node:crypto';
import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import { subjects, SYSTEM_ACCOUNT } from '@reelsmith/proto';
import { DrizzleIdentityRepository } from '../../src/repositories/identity.repository';
import { DbRateLimiter } from '../../src/repositories/rate-limiter';

const uid = () => crypto.randomUUID();
const unique = (label: string) => `${label}-${crypto.randomBytes(6).toString('hex')}`;

describe('identity repository against real PostgreSQL', () => {
  let pg: TestDatabase;
  let db: Database;
  let commits = 0;
  let repo: DrizzleIdentityRepository;

  beforeAll(async () => {
    pg = await createTestDatabase('identity');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 12 });
    // As the service starts (main.ts sets outbox: true): the kit's outbox table, then its own files.
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    repo = new DrizzleIdentityRepository(db.orm, () => void commits++);
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
  });

  const outboxFor = async (msgId: string) =>
    db.query<{ subject: string; payload: string; published_at: Date | null }>(
      'select subject, payload, published_at from outbox where msg_id = $1',
      [msgId],
    );
  const newUser = async (email = `${unique('user')}@example.com`) => {
    const id = uid();
    expect(await repo.createUser({ id, email, passwordHash: 'argon2-hash' })).toBe(true);
    return { id, email };
  };

  it('creates a user once per e-mail whatever its case, recording user_registered in the same transaction', async () => {
    const email = `${unique('Ann')}@Example.com`;
    const id = uid();
    const before = commits;

    expect(await repo.createUser({ id, email, passwordHash: 'h1' })).toBe(true);
    expect(await repo.createUser({ id: uid(), email: email.toUpperCase(), passwordHash: 'h2' })).toBe(false);

    const found = await repo.findUserByEmail(email.toUpperCase());
    expect(found).toMatchObject({
      id,
      email: email.toLowerCase(),
      passwordHash: 'h1',
      isAdmin: false,
      isGuest: false,
      emailVerifiedAt: null,
    });
    expect(await repo.findUserById(id)).toEqual(found);
    expect(commits - before).toBe(1); // the refused duplicate kicks nothing

    const events = await outboxFor(`identity.registered.${id}`);
    expect(events).toHaveLength(1);
    expect(events[0]!.subject).toBe('events.identity.user_registered');
    expect(events[0]!.published_at).toBeNull();
    const msg = fromBinary(subjects['events.identity.user_registered'], Buffer.from(events[0]!.payload, 'base64'));
    expect(msg).toMatchObject({ userId: id });
  });

  it('of concurrent sign-ups with one e-mail exactly one creates the account', async () => {
    const email = `${unique('race')}@example.com`;
    const results = await Promise.all(Array.from({ length: 8 }, () => repo.createUser({ id: uid(), email, passwordHash: 'h' })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await db.query('select id from users where lower(email) = $1', [email])).length).toBe(1);
  });

  it('unknown users are null', async () => {
    expect(await repo.findUserByEmail(`${unique('nobody')}@example.com`)).toBeNull();
    expect(await repo.findUserById(uid())).toBeNull();
  });

  it('a guest user is created verified; marking verified never moves the first verification time', async () => {
    const at = new Date('2026-02-01T10:00:00Z');
    const guestId = uid();
    await repo.createUser({ id: guestId, email: `${unique('guest')}@example.com`, passwordHash: 'h', isGuest: true, verifiedAt: at });
    expect(await repo.findUserById(guestId)).toMatchObject({ isGuest: true, emailVerifiedAt: at });

    const { id } = await newUser();
    await repo.markVerified(id, at);
    await repo.markVerified(id, new Date('2026-02-02T10:00:00Z'));
    expect((await repo.findUserById(id))!.emailVerifiedAt).toEqual(at);
  });

  it('sets a new password hash', async () => {
    const { id } = await newUser();
    await repo.setPassword(id, 'new-hash');
    expect((await repo.findUserById(id))!.passwordHash).toBe('new-hash');
  });

  it("retiring a regular account moves its address, replaces its password, revokes its sessions and drops its pending codes; never a guest's", async () => {
    const held = await newUser(`${unique('Squat')}@Example.com`);
    const other = await newUser();
    const expiresAt = new Date(Date.now() + 3600_000);
    const [s1, s2] = [unique('tok-s1'), unique('tok-s2')];
    await repo.createSession({ userId: held.id, tokenHash: s1, expiresAt, loginType: 'password', email: held.email });
    await repo.createSession({ userId: other.id, tokenHash: s2, expiresAt, loginType: 'password', email: other.email });
    const pending = unique('code');
    await repo.replaceVerifications(held.id, [{ kind: 'code', tokenHash: pending }], expiresAt);
    const at = new Date('2026-04-01T00:00:00Z');
    const retired = `retired-${held.id}@retired.reelsmith.local`;

    expect(await repo.retireUser(held.id, retired, 'locked-hash', at)).toBe(true);

    expect(await repo.findUserByEmail(held.email)).toBeNull();
    expect(await repo.findUserByEmail(retired)).toMatchObject({ id: held.id, passwordHash: 'locked-hash', isGuest: false });
    expect((await repo.findSession(s1))!.revokedAt).toEqual(at);
    expect((await repo.findSession(s2))!.revokedAt).toBeNull();
    expect(await repo.consumeVerification('code', pending, new Date())).toBeNull();
    // The address is free for the guest account now.
    expect(await repo.createUser({ id: uid(), email: held.email, passwordHash: 'g', isGuest: true, verifiedAt: at })).toBe(true);

    const guestId = uid();
    await repo.createUser({ id: guestId, email: `${unique('guest')}@example.com`, passwordHash: 'g', isGuest: true, verifiedAt: at });
    expect(await repo.retireUser(guestId, `retired-${guestId}@retired.reelsmith.local`, 'x', at)).toBe(false);
    expect(await repo.retireUser(uid(), 'nobody@retired.reelsmith.local', 'x', at)).toBe(false);
    expect((await repo.findUserById(guestId))!.passwordHash).toBe('g');
  });

  it('stores sessions with a user_logged_in fact, and revokes one or all of a user', async () => {
    const ann = await newUser();
    const bob = await newUser();
    const expiresAt = new Date(Date.now() + 3600_000);
    const [a1, a2, b1] = [unique('tok-a1'), unique('tok-a2'), unique('tok-b1')];
    await repo.createSession({ userId: ann.id, tokenHash: a1, expiresAt, loginType: 'password', email: ann.email });
    await repo.createSession({ userId: ann.id, tokenHash: a2, expiresAt, loginType: 'verification', email: ann.email });
    await repo.createSession({ userId: bob.id, tokenHash: b1, expiresAt, loginType: 'password', email: bob.email });

    expect(await repo.findSession(a1)).toEqual({ userId: ann.id, expiresAt, revokedAt: null });
    expect(await repo.findSession(unique('missing'))).toBeNull();
    const [login] = await outboxFor(`identity.login.${a1.slice(0, 32)}`);
    expect(login?.subject).toBe('events.identity.user_logged_in');
    expect(fromBinary(subjects['events.identity.user_logged_in'], Buffer.from(login!.payload, 'base64'))).toMatchObject({
      userId: ann.id,
      loginType: 'password',
    });

    const first = new Date('2026-03-01T00:00:00Z');
    await repo.revokeSession(a1, first);
    await repo.revokeSession(a1, new Date('2026-03-02T00:00:00Z')); // the first revocation stands
    expect((await repo.findSession(a1))!.revokedAt).toEqual(first);

    const all = new Date('2026-03-03T00:00:00Z');
    await repo.revokeUserSessions(ann.id, all);
    expect((await repo.findSession(a1))!.revokedAt).toEqual(first);
    expect((await repo.findSession(a2))!.revokedAt).toEqual(all);
    expect((await repo.findSession(b1))!.revokedAt).toBeNull();
  });

  it('revokes every session but one; a reset link replaces the older one and survives new verifications; deleting a user removes its rows', async () => {
    const ann = await newUser();
    const bob = await newUser();
    const expiresAt = new Date(Date.now() + 3600_000);
    const [keep, other, bobs] = [unique('keep'), unique('other'), unique('bob')];
    for (const [userId, tokenHash, email] of [
      [ann.id, keep, ann.email],
      [ann.id, other, ann.email],
      [bob.id, bobs, bob.email],
    ] as const)
      await repo.createSession({ userId, tokenHash, expiresAt, loginType: 'password', email });
    expect(await repo.revokeOtherSessions(ann.id, keep, new Date())).toBe(1);
    expect((await repo.findSession(keep))!.revokedAt).toBeNull();
    expect((await repo.findSession(other))!.revokedAt).not.toBeNull();
    expect((await repo.findSession(bobs))!.revokedAt).toBeNull();

    const [old, fresh] = [unique('reset-old'), unique('reset-new')];
    await repo.replaceReset(ann.id, old, expiresAt);
    await repo.replaceReset(ann.id, fresh, expiresAt);
    await repo.replaceVerifications(ann.id, [{ kind: 'link', tokenHash: unique('link') }], expiresAt);
    expect(await repo.consumeVerification('reset', old, new Date())).toBeNull();
    expect(await repo.consumeVerification('reset', fresh, new Date())).toBe(ann.id);
    expect(await repo.consumeVerification('reset', fresh, new Date())).toBeNull();

    await repo.deleteUser(ann.id);
    expect(await repo.findUserById(ann.id)).toBeNull();
    expect(await repo.findSession(keep)).toBeNull();
    expect(await repo.findUserById(bob.id)).not.toBeNull();
    expect(await repo.findSession(bobs)).not.toBeNull();
  });

  it('a verification is consumed once, by its kind, before it expires', async () => {
    const { id } = await newUser();
    const now = new Date();
    const link = unique('link');
    const code = unique('code');
    await repo.replaceVerifications(
      id,
      [
        { kind: 'link', tokenHash: link },
        { kind: 'code', tokenHash: code },
      ],
      new Date(now.getTime() + 60_000),
    );

    expect(await repo.consumeVerification('code', link, now)).toBeNull(); // wrong kind
    expect(await repo.consumeVerification('link', link, new Date(now.getTime() + 60_000))).toBeNull(); // expired by then
    expect(await repo.consumeVerification('link', link, now)).toBe(id);
    expect(await repo.consumeVerification('link', link, now)).toBeNull(); // used
    expect(await repo.consumeVerification('code', code, now)).toBe(id);
  });

  it('of concurrent uses of one code exactly one succeeds', async () => {
    const { id } = await newUser();
    const code = unique('code');
    await repo.replaceVerifications(id, [{ kind: 'code', tokenHash: code }], new Date(Date.now() + 60_000));
    const results = await Promise.all(Array.from({ length: 10 }, () => repo.consumeVerification('code', code, new Date())));
    expect(results.filter((r) => r === id)).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(9);
  });

  it("replacing verifications drops the user's unused ones, keeps used ones, and leaves other users alone", async () => {
    const ann = await newUser();
    const bob = await newUser();
    const expires = new Date(Date.now() + 60_000);
    const [used, unused, fresh, bobs] = [unique('used'), unique('unused'), unique('fresh'), unique('bob')];
    await repo.replaceVerifications(
      ann.id,
      [
        { kind: 'link', tokenHash: used },
        { kind: 'code', tokenHash: unused },
      ],
      expires,
    );
    await repo.replaceVerifications(bob.id, [{ kind: 'code', tokenHash: bobs }], expires);
    expect(await repo.consumeVerification('link', used, new Date())).toBe(ann.id);

    await repo.replaceVerifications(ann.id, [{ kind: 'code', tokenHash: fresh }], expires);

    const rows = await db.query<{ token_hash: string }>(
      'select token_hash from email_verifications where user_id = $1 order by token_hash',
      [ann.id],
    );
    expect(rows.map((r) => r.token_hash).sort()).toEqual([fresh, used].sort());
    expect(await repo.consumeVerification('code', unused, new Date())).toBeNull();
    expect(await repo.consumeVerification('code', fresh, new Date())).toBe(ann.id);
    expect(await repo.consumeVerification('code', bobs, new Date())).toBe(bob.id);

    await repo.replaceVerifications(bob.id, [], expires); // none: just invalidate
    expect(await db.query('select 1 from email_verifications where user_id = $1', [bob.id])).toHaveLength(1); // the used one
  });

  it('display names: none by default, set and cleared; public names only for those that have one; the system account is Reelsmith', async () => {
    const ann = await newUser();
    const bob = await newUser();
    expect((await repo.findUserById(ann.id))!.displayName).toBeNull();
    expect((await repo.setDisplayName(ann.id, 'Ann Lee'))!.displayName).toBe('Ann Lee');
    expect(await repo.publicNames([ann.id, bob.id, uid()])).toEqual(new Map([[ann.id, 'Ann Lee']]));
    expect((await repo.setDisplayName(ann.id, null))!.displayName).toBeNull();
    expect(await repo.publicNames([ann.id])).toEqual(new Map());
    expect(await repo.setDisplayName(uid(), 'Nobody')).toBeNull();
    // The table refuses what the rule refuses in length (code points, as the rule counts them).
    await expect(db.query('update users set display_name = $1 where id = $2', ['x'.repeat(41), bob.id])).rejects.toThrow();
    await expect(db.query('update users set display_name = $1 where id = $2', ['', bob.id])).rejects.toThrow();
    expect((await repo.setDisplayName(bob.id, '\u{1F3AC}'.repeat(40)))!.displayName).toBe('\u{1F3AC}'.repeat(40));
    // Seeded by migrations 0101 and 0102: the account that renders the demo reels.
    expect(await repo.publicNames([SYSTEM_ACCOUNT.id])).toEqual(new Map([[SYSTEM_ACCOUNT.id, 'Reelsmith']]));
  });

  it('the guest pass is off until set, then upserted as one row', async () => {
    // Each test makes its own data, but guest_pass is a singleton: this is the only test touching it.
    expect(await repo.guestPass()).toEqual({ enabled: false, userId: null });
    const guest = await newUser();
    const admin = uid();
    await repo.setGuestPass(true, guest.id, admin);
    expect(await repo.guestPass()).toEqual({ enabled: true, userId: guest.id });
    await repo.setGuestPass(false, guest.id, admin);
    expect(await repo.guestPass()).toEqual({ enabled: false, userId: guest.id });
    expect(await db.query('select changed_by from guest_pass')).toEqual([{ changed_by: admin }]);
  });
});

describe('rate limiter against real PostgreSQL', () => {
  let pg: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    pg = await createTestDatabase('identity_rl');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 12 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
  });

  it('two replicas share one count: of 12 concurrent attempts against a limit of 5, exactly 5 pass', async () => {
    const now = () => new Date('2026-03-01T12:05:00Z');
    const replicas = [new DbRateLimiter(db.orm, now), new DbRateLimiter(db.orm, now)];
    const key = unique('login:acct');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => replicas[i % 2]!.hit(key, 5, 15 * 60_000)));
    expect(results.filter(Boolean)).toHaveLength(5);
    // Another key has its own count.
    expect(await replicas[0]!.hit(unique('login:acct'), 5, 15 * 60_000)).toBe(true);
  });

  it('a new window starts a new count', async () => {
    let t = new Date('2026-03-01T12:14:59Z');
    const limiter = new DbRateLimiter(db.orm, () => t);
    const key = unique('resend:acct');
    for (let i = 0; i < 3; i++) expect(await limiter.hit(key, 3, 15 * 60_000)).toBe(true);
    expect(await limiter.hit(key, 3, 15 * 60_000)).toBe(false);
    t = new Date('2026-03-01T12:15:00Z');
    expect(await limiter.hit(key, 3, 15 * 60_000)).toBe(true);
  });
});
