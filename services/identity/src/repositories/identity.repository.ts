import crypto from 'node:crypto';
import { and, eq, gt, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { enqueueEvent, type Orm } from '@reelsmith/kit';
import type { IdentityRepository, UserRecord } from '../domain/identity.service.js';
import { apiKeys } from './api-keys.schema.js';
import { emailVerifications, guestPass, sessions, users } from './schema.js';

const toUser = (r: typeof users.$inferSelect): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.passwordHash,
  isAdmin: r.isAdmin,
  isGuest: r.isGuest,
  displayName: r.displayName,
  emailVerifiedAt: r.emailVerifiedAt,
  createdAt: r.createdAt,
});

/** Identity tables through Drizzle. E-mails are stored lower-cased; a unique index enforces it. */
export class DrizzleIdentityRepository implements IdentityRepository {
  constructor(
    private readonly orm: Orm,
    /** Kicks the outbox relay after a fact was recorded. */
    private readonly committed: () => void = () => undefined,
  ) {}

  async findUserByEmail(email: string) {
    const [r] = await this.orm
      .select()
      .from(users)
      .where(sql`lower(${users.email}) = ${email.toLowerCase()}`);
    return r ? toUser(r) : null;
  }

  async findUserById(id: string) {
    const [r] = await this.orm.select().from(users).where(eq(users.id, id));
    return r ? toUser(r) : null;
  }

  async createUser(u: { id: string; email: string; passwordHash: string; isGuest?: boolean; verifiedAt?: Date | null }) {
    const created = await this.orm.transaction(async (tx) => {
      const rows = await tx
        .insert(users)
        .values({
          id: u.id,
          email: u.email.toLowerCase(),
          passwordHash: u.passwordHash,
          isGuest: u.isGuest ?? false,
          emailVerifiedAt: u.verifiedAt ?? null,
        })
        .onConflictDoNothing()
        .returning({ id: users.id });
      if (rows.length)
        await enqueueEvent(
          tx,
          'events.identity.user_registered',
          { userId: u.id, email: u.email, atUnixMs: BigInt(Date.now()) },
          `identity.registered.${u.id}`,
        );
      return rows.length === 1;
    });
    if (created) this.committed();
    return created;
  }

  async markVerified(userId: string, at: Date) {
    const verified = await this.orm.transaction(async (tx) => {
      const rows = await tx
        .update(users)
        .set({ emailVerifiedAt: at })
        .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
        .returning({ email: users.email });
      if (rows[0])
        await enqueueEvent(
          tx,
          'events.identity.user_verified',
          { userId, email: rows[0].email, atUnixMs: BigInt(at.getTime()) },
          `identity.verified.${userId}`,
        );
      return rows.length > 0;
    });
    if (verified) this.committed();
  }

  async setAdmin(email: string, isAdmin: boolean, by: string) {
    const changed = await this.orm.transaction(async (tx) => {
      const [u] = await tx
        .update(users)
        .set({ isAdmin })
        .where(and(sql`lower(${users.email}) = ${email.toLowerCase()}`, eq(users.isGuest, false)))
        .returning({ id: users.id, email: users.email });
      if (!u) return null;
      await enqueueEvent(
        tx,
        'events.identity.admin_changed',
        { userId: u.id, email: u.email, isAdmin, by, atUnixMs: BigInt(Date.now()) },
        `identity.admin_changed.${u.id}.${crypto.randomUUID()}`,
      );
      return { id: u.id, email: u.email };
    });
    if (changed) this.committed();
    return changed;
  }

  /** Accounts with the stored admin flag (the start-up hint when there is none). */
  async adminCount(): Promise<number> {
    const [r] = await this.orm
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.isAdmin, true));
    return Number(r?.n ?? 0);
  }

  async loginFailed(email: string, userId: string | null, reason: string) {
    await enqueueEvent(
      this.orm,
      'events.identity.login_failed',
      { email, userId: userId ?? '', reason, atUnixMs: BigInt(Date.now()) },
      `identity.login_failed.${crypto.randomUUID()}`,
    );
    this.committed();
  }

  async setPassword(userId: string, passwordHash: string) {
    await this.orm.update(users).set({ passwordHash }).where(eq(users.id, userId));
  }

  async retireUser(userId: string, email: string, passwordHash: string, at: Date) {
    return this.orm.transaction(async (tx) => {
      const rows = await tx
        .update(users)
        .set({ email: email.toLowerCase(), passwordHash })
        .where(and(eq(users.id, userId), eq(users.isGuest, false)))
        .returning({ id: users.id });
      if (!rows.length) return false;
      await tx
        .update(sessions)
        .set({ revokedAt: at })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
      await tx.delete(emailVerifications).where(and(eq(emailVerifications.userId, userId), isNull(emailVerifications.usedAt)));
      return true;
    });
  }

  async createSession(s: { userId: string; tokenHash: string; expiresAt: Date; loginType: string; email: string }) {
    await this.orm.transaction(async (tx) => {
      await tx.insert(sessions).values({ tokenHash: s.tokenHash, userId: s.userId, loginType: s.loginType, expiresAt: s.expiresAt });
      await enqueueEvent(
        tx,
        'events.identity.user_logged_in',
        { userId: s.userId, email: s.email, loginType: s.loginType, atUnixMs: BigInt(Date.now()) },
        `identity.login.${s.tokenHash.slice(0, 32)}`,
      );
    });
    this.committed();
  }

  async findSession(tokenHash: string) {
    const [r] = await this.orm.select().from(sessions).where(eq(sessions.tokenHash, tokenHash));
    return r ? { userId: r.userId, expiresAt: r.expiresAt, revokedAt: r.revokedAt } : null;
  }

  async revokeSession(tokenHash: string, at: Date) {
    await this.orm
      .update(sessions)
      .set({ revokedAt: at })
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)));
  }

  async revokeUserSessions(userId: string, at: Date) {
    await this.orm
      .update(sessions)
      .set({ revokedAt: at })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  }

  async revokeOtherSessions(userId: string, keepTokenHash: string, at: Date) {
    const rows = await this.orm
      .update(sessions)
      .set({ revokedAt: at })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), ne(sessions.tokenHash, keepTokenHash)))
      .returning({ tokenHash: sessions.tokenHash });
    return rows.length;
  }

  async replaceReset(userId: string, tokenHash: string, expiresAt: Date) {
    await this.orm.transaction(async (tx) => {
      await tx
        .delete(emailVerifications)
        .where(and(eq(emailVerifications.userId, userId), eq(emailVerifications.kind, 'reset'), isNull(emailVerifications.usedAt)));
      await tx.insert(emailVerifications).values({ tokenHash, userId, kind: 'reset', expiresAt });
    });
  }

  async deleteUser(userId: string) {
    await this.orm.transaction(async (tx) => {
      await tx.delete(sessions).where(eq(sessions.userId, userId));
      await tx.delete(emailVerifications).where(eq(emailVerifications.userId, userId));
      await tx.delete(apiKeys).where(eq(apiKeys.userId, userId));
      await tx.delete(users).where(eq(users.id, userId));
    });
  }

  async replaceVerifications(userId: string, items: { kind: 'link' | 'code'; tokenHash: string }[], expiresAt: Date) {
    await this.orm.transaction(async (tx) => {
      // Sign-up verifications only: a pending password reset link stays valid.
      await tx
        .delete(emailVerifications)
        .where(and(eq(emailVerifications.userId, userId), isNull(emailVerifications.usedAt), ne(emailVerifications.kind, 'reset')));
      if (items.length)
        await tx.insert(emailVerifications).values(items.map((i) => ({ tokenHash: i.tokenHash, userId, kind: i.kind, expiresAt })));
    });
  }

  async consumeVerification(kind: 'link' | 'code' | 'reset', tokenHash: string, now: Date) {
    // One statement: two concurrent uses of the same token cannot both succeed.
    const rows = await this.orm
      .update(emailVerifications)
      .set({ usedAt: now })
      .where(
        and(
          eq(emailVerifications.tokenHash, tokenHash),
          eq(emailVerifications.kind, kind),
          isNull(emailVerifications.usedAt),
          gt(emailVerifications.expiresAt, now),
        ),
      )
      .returning({ userId: emailVerifications.userId });
    return rows[0]?.userId ?? null;
  }

  async setDisplayName(userId: string, displayName: string | null) {
    const rows = await this.orm.update(users).set({ displayName }).where(eq(users.id, userId)).returning();
    return rows[0] ? toUser(rows[0]) : null;
  }

  async publicNames(userIds: string[]) {
    if (!userIds.length) return new Map<string, string>();
    const rows = await this.orm
      .select({ id: users.id, name: users.displayName })
      .from(users)
      .where(and(inArray(users.id, userIds), isNotNull(users.displayName)));
    return new Map(rows.map((r) => [r.id, r.name!]));
  }

  async guestPass() {
    const [r] = await this.orm.select().from(guestPass);
    return { enabled: r?.enabled ?? false, userId: r?.userId ?? null };
  }

  async setGuestPass(enabled: boolean, userId: string | null, adminUserId: string) {
    await this.orm
      .insert(guestPass)
      .values({ singleton: true, enabled, userId, changedBy: adminUserId })
      .onConflictDoUpdate({ target: guestPass.singleton, set: { enabled, userId, changedBy: adminUserId, changedAt: new Date() } });
  }
}
