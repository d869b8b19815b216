import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { ApiKeyRecord, ApiKeyRepository } from '../domain/api-keys.service.js';
import { apiKeys } from './api-keys.schema.js';

export class DrizzleApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly orm: Orm) {}
  async insert(k: ApiKeyRecord) {
    await this.orm.insert(apiKeys).values(k);
  }
  listActive(userId: string) {
    return this.orm
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  }
  async countActive(userId: string) {
    const [r] = await this.orm
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
    return Number(r?.n ?? 0);
  }
  async bySecretHash(secretHash: string) {
    const [r] = await this.orm.select().from(apiKeys).where(eq(apiKeys.secretHash, secretHash));
    return r ?? null;
  }
  async revoke(userId: string, keyId: string, at: Date) {
    const [r] = await this.orm
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
      .returning();
    return r ?? null;
  }
  async touch(keyId: string, at: Date) {
    await this.orm.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, keyId));
  }
}
