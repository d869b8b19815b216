import { and, desc, eq, inArray, isNotNull, ne } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { MediaRecord } from '../domain/media.service.js';
import type { StoredCorrection, TempoRepository } from '../domain/tempo.service.js';
import { libraryTempoCorrections, mediaObjects } from './schema.js';

type Track = Pick<MediaRecord, 'objectKey' | 'library'>;

/** Corrections of an upload sit in its record (`tempo_correction`); of a library track, in a row per user. */
export class DrizzleTempoRepository implements TempoRepository {
  constructor(private readonly orm: Orm) {}

  async forOwner(ownerId: string, media: Track[]) {
    const out = new Map<string, StoredCorrection>();
    const uploads = media.filter((m) => !m.library).map((m) => m.objectKey);
    const library = media.filter((m) => m.library).map((m) => m.objectKey);
    if (uploads.length) {
      const rows = await this.orm
        .select({ key: mediaObjects.objectKey, c: mediaObjects.tempoCorrection })
        .from(mediaObjects)
        .where(and(eq(mediaObjects.ownerId, ownerId), inArray(mediaObjects.objectKey, uploads)));
      for (const r of rows) if (r.c) out.set(r.key, r.c as StoredCorrection);
    }
    if (library.length) {
      const rows = await this.orm
        .select({ key: libraryTempoCorrections.objectKey, c: libraryTempoCorrections.correction })
        .from(libraryTempoCorrections)
        .where(and(eq(libraryTempoCorrections.ownerId, ownerId), inArray(libraryTempoCorrections.objectKey, library)));
      for (const r of rows) out.set(r.key, r.c as StoredCorrection);
    }
    return out;
  }

  async sameFile(ownerId: string, m: Pick<MediaRecord, 'objectKey' | 'displayName' | 'sizeBytes'>) {
    const [row] = await this.orm
      .select({ c: mediaObjects.tempoCorrection })
      .from(mediaObjects)
      .where(
        and(
          eq(mediaObjects.ownerId, ownerId),
          eq(mediaObjects.kind, 'audio'),
          eq(mediaObjects.displayName, m.displayName),
          eq(mediaObjects.sizeBytes, m.sizeBytes),
          ne(mediaObjects.objectKey, m.objectKey),
          isNotNull(mediaObjects.tempoCorrection),
        ),
      )
      .orderBy(desc(mediaObjects.createdAt))
      .limit(1);
    return (row?.c as StoredCorrection | undefined) ?? null;
  }

  async set(ownerId: string, m: Track, value: StoredCorrection | null) {
    if (!m.library) {
      await this.orm
        .update(mediaObjects)
        .set({ tempoCorrection: value })
        .where(and(eq(mediaObjects.ownerId, ownerId), eq(mediaObjects.objectKey, m.objectKey)));
      return;
    }
    const key = and(eq(libraryTempoCorrections.ownerId, ownerId), eq(libraryTempoCorrections.objectKey, m.objectKey));
    if (!value) {
      await this.orm.delete(libraryTempoCorrections).where(key);
      return;
    }
    await this.orm
      .insert(libraryTempoCorrections)
      .values({ ownerId, objectKey: m.objectKey, correction: value })
      .onConflictDoUpdate({
        target: [libraryTempoCorrections.ownerId, libraryTempoCorrections.objectKey],
        set: { correction: value, updatedAt: new Date() },
      });
  }
}
