import crypto from 'node:crypto';
import path from 'node:path';
import { DomainError, ErrorCode, migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, domainFailure, type TestDatabase } from '@reelsmith/kit/testing';
import { ApiKeysService, LAST_USED_RESOLUTION_MS, MAX_API_KEYS } from '../../src/domain/api-keys.service';
import { DrizzleApiKeyRepository } from '../../src/repositories/api-keys.repository';
import { DrizzleIdentityRepository } from '../../src/repositories/identity.repository';
import { secrets } from '../../src/repositories/crypto';

/** API keys on real PostgreSQL: hashed at rest, shown once, scoped, revoked at once. */
describe('API keys', () => {
  let pg: TestDatabase;
  let db: Database;
  let users: DrizzleIdentityRepository;
  let now = new Date('2026-11-29T04:00:00Z');
  const revoked: string[][] = [];
  let usersDown = false;
  let svc: ApiKeysService;

  beforeAll(async () => {
    pg = await createTestDatabase('apikeys');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    users = new DrizzleIdentityRepository(db.orm, () => undefined);
    svc = new ApiKeysService({
      repo: new DrizzleApiKeyRepository(db.orm),
      users: {
        user: async (id) => {
          if (usersDown) throw new DomainError(ErrorCode.UNAVAILABLE, 'database unreachable');
          const u = await users.findUserById(id);
          if (!u) throw new DomainError(ErrorCode.NOT_FOUND, 'user not found');
          return { ...u, unlimited: false, emailVerified: true, displayName: '' };
        },
      },
      hash: secrets('k'.repeat(32)).hash,
      onRevoked: (h) => revoked.push(h),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
  });

  const newUser = async () => {
    const id = crypto.randomUUID();
    await users.createUser({ id, email: `${id}@example.com`, passwordHash: 'h' });
    return id;
  };

  it('answers the secret once, stores only hashes of it, and authenticates it to its user and scopes', async () => {
    const userId = await newUser();
    const { key, secret } = await svc.create(userId, '  CI uploader ', ['uploads:write', 'jobs:write', 'jobs:write']);
    expect(secret).toMatch(/^rs_live_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: 'CI uploader', prefix: secret.slice(0, 14), scopes: ['uploads:write', 'jobs:write'] });

    const rows = await db.query<Record<string, unknown>>('select * from api_keys where user_id = $1', [userId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(8));
    expect(rows[0]!['public_hash']).toBe(crypto.createHash('sha256').update(secret).digest('hex'));

    const listed = await svc.list(userId);
    expect(listed.map((k) => [k.id, k.name, k.lastUsedAt])).toEqual([[key.id, 'CI uploader', null]]);

    const auth = await svc.authenticate(secret);
    expect(auth.user.id).toBe(userId);
    expect(auth.key.scopes).toEqual(['uploads:write', 'jobs:write']);
    expect((await svc.list(userId))[0]!.lastUsedAt).toEqual(now);

    await expect(svc.authenticate(secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A'))).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'invalid_api_key',
    });
    await expect(svc.authenticate('not-a-key')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('updates last used at most once a minute', async () => {
    const userId = await newUser();
    const { secret } = await svc.create(userId, 'poller', ['jobs:read']);
    const t0 = now;
    await svc.authenticate(secret);
    now = new Date(t0.getTime() + LAST_USED_RESOLUTION_MS - 1);
    await svc.authenticate(secret);
    expect((await svc.list(userId))[0]!.lastUsedAt).toEqual(t0);
    now = new Date(t0.getTime() + LAST_USED_RESOLUTION_MS);
    await svc.authenticate(secret);
    expect((await svc.list(userId))[0]!.lastUsedAt).toEqual(now);
  });

  it('revokes a key of its owner only, at once, telling the gateways its hash', async () => {
    const owner = await newUser();
    const other = await newUser();
    const { key, secret } = await svc.create(owner, 'to revoke', ['reels:read']);
    expect(await domainFailure(svc.revoke(other, key.id))).toMatchObject({ code: 'NOT_FOUND' });
    await svc.authenticate(secret);

    const publicHash = crypto.createHash('sha256').update(secret).digest('hex');
    expect(await svc.revoke(owner, key.id)).toBe(publicHash); // the asking gateway drops it from its cache
    expect(revoked.at(-1)).toEqual([publicHash]);
    await expect(svc.authenticate(secret)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', reason: 'invalid_api_key' });
    expect(await svc.list(owner)).toEqual([]);
    expect(await domainFailure(svc.revoke(owner, key.id))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses unknown or no scopes, bad names, and more than the limit of keys', async () => {
    const userId = await newUser();
    expect(await domainFailure(svc.create(userId, 'x', ['jobs:write', 'account:delete']))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_scopes',
      message: 'Unknown scope: account:delete.',
    });
    expect(await domainFailure(svc.create(userId, 'x', []))).toMatchObject({ reason: 'invalid_scopes' });
    expect(await domainFailure(svc.create(userId, ' ', ['jobs:read']))).toMatchObject({ reason: 'invalid_api_key_name' });
    expect(await domainFailure(svc.create(userId, 'a\nb', ['jobs:read']))).toMatchObject({ reason: 'invalid_api_key_name' });
    for (let i = 0; i < MAX_API_KEYS; i++) await svc.create(userId, `k${i}`, ['jobs:read']);
    expect(await domainFailure(svc.create(userId, 'one more', ['jobs:read']))).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      reason: 'too_many_api_keys',
    });
  });

  it('a failure to read the account (the database down) is not an invalid key; a deleted account takes its keys with it', async () => {
    const userId = await newUser();
    const { secret } = await svc.create(userId, 'ci', ['jobs:read']);
    usersDown = true;
    try {
      await expect(svc.authenticate(secret)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      usersDown = false;
    }
    await users.deleteUser(userId);
    expect(await db.query('select 1 from api_keys where user_id = $1', [userId])).toHaveLength(0);
    await expect(svc.authenticate(secret)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', reason: 'invalid_api_key' });
  });
});
