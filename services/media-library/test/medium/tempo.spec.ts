import crypto from 'node:crypto';
import path from 'node:path';
import { migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import { MUSIC_ANALYSIS_VERSION, SAME_BEATS_SINCE, type MusicAnalysis } from '@reelsmith/engine';
import type { LibraryItem } from '../../src/domain/library.service';
import type { MediaRecord } from '../../src/domain/media.service';
import { parseCorrection, TempoService } from '../../src/domain/tempo.service';
import { DrizzleLibraryRepository } from '../../src/repositories/library.repository';
import { DrizzleMediaRepository } from '../../src/repositories/media.repository';
import { DrizzleTempoRepository } from '../../src/repositories/tempo.repository';
import { asMedia } from '../../src/transport/grpc';

const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');
const uid = () => crypto.randomUUID();

/** A steady 120 BPM analysis over 10 s: beats every 0.5 s from 0.25. */
function analysis(bpm = 120): MusicAnalysis {
  const p = 60 / bpm;
  const beats: number[] = [];
  for (let t = 0.25; t < 10; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec: 10, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 };
}

/** What an upload and a library track of a 10-second MP3 have in common. */
const TEN_SECOND_MP3 = { durationSec: 10, width: 0, height: 0, videoCodec: '', audioCodec: 'mp3', thumbnailKey: '' };

function upload(ownerId: string): MediaRecord {
  return {
    id: uid(),
    ownerId,
    objectKey: `uploads/${ownerId}/${uid()}.mp3`,
    kind: 'audio',
    displayName: 'song.mp3',
    sizeBytes: 1000,
    ...TEN_SECOND_MP3,
    analysisStatus: 'done',
    analysis: null,
  };
}

function libraryTrack(): LibraryItem {
  const key = uid().slice(0, 24);
  return {
    id: uid(),
    key,
    kind: 'audio',
    filename: `${key}.mp3`,
    category: 'general',
    contentHash: uid(),
    objectKey: `library/audio/${key}`,
    sizeBytes: 1,
    ...TEN_SECOND_MP3,
    previewFrameKeys: [],
    bpm: 120,
    peaks: [],
    analysisStatus: 'done',
    analysis: analysis(),
  };
}

/**
 * Tempo corrections kept in media-library's real database: with an upload's record, per user for
 * a library track; applied to the analysis whenever the track is read, by a service that did not
 * make them (a restart or another replica reads the same rows).
 */
describe('tempo corrections against real PostgreSQL', () => {
  let pg: TestDatabase;
  let db: Database;
  let media: DrizzleMediaRepository;
  let library: DrizzleLibraryRepository;
  const fresh = () => new TempoService(new DrizzleTempoRepository(db.orm));
  beforeEach(async () => {
    pg = await createTestDatabase('tempo');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 2 });
    await migrate(db, readMigrations(MIGRATIONS));
    media = new DrizzleMediaRepository(db.orm);
    library = new DrizzleLibraryRepository(db.orm);
  });
  afterEach(async () => {
    await db?.close();
    await pg?.drop();
  });

  const read = async (owner: string, m: MediaRecord) => (await fresh().corrected(owner, [m]))[0]!;
  const beatsOf = (m: { analysis: unknown }) => (m.analysis as MusicAnalysis).beats;
  /** A new owner's upload, stored (not yet analysed). */
  const storedUpload = async () => {
    const owner = uid();
    const m = upload(owner);
    await media.insert(m);
    return { owner, m };
  };
  /** The track's record once analysed (again) as `a`. */
  const analysedAs = async (key: string, a: MusicAnalysis) => {
    await media.setAnalysis(key, 'done', a);
    return (await media.byKeys([key]))[0]!;
  };

  it("keeps an upload's corrections with its record and applies them for the next reader", async () => {
    const { owner, m } = await storedUpload();
    const stored = await analysedAs(m.objectKey, analysis());

    const doubled = await fresh().correct(owner, stored, parseCorrection('double', []));
    expect(doubled).toMatchObject({ tempoCorrections: [{ kind: 'double' }], analysedBpm: 120 });
    expect((doubled.analysis as MusicAnalysis).bpm).toBeCloseTo(240, 3);
    // Another service instance (a restart) reads the same: 240 BPM, beats every 0.25 s from 0.
    const again = await read(owner, stored);
    expect((again.analysis as MusicAnalysis).bpm).toBeCloseTo(240, 3);
    expect(beatsOf(again).slice(0, 3)).toEqual([0, 0.25, 0.5]);
    const [{ c }] = (await db.query<{ c: unknown }>('select tempo_correction as c from media_objects where object_key = $1', [
      m.objectKey,
    ])) as [{ c: unknown }];
    expect(c).toEqual({ baseBpm: 120, baseVersion: 2, corrections: [{ kind: 'double' }] });

    // Halving cancels the double: nothing left to store.
    const back = await fresh().correct(owner, stored, parseCorrection('halve', []));
    expect(back.tempoCorrections).toEqual([]);
    expect(beatsOf(back)).toEqual(analysis().beats);
    const [row] = await db.query<{ c: unknown }>('select tempo_correction as c from media_objects where object_key = $1', [m.objectKey]);
    expect(row!.c).toBeNull();
  });

  it('carries the corrections over to the same song uploaded again by the same owner (only)', async () => {
    const { owner, m: first } = await storedUpload();
    await fresh().correct(owner, await analysedAs(first.objectKey, analysis()), parseCorrection('halve', []));
    const again = { ...upload(owner), analysisStatus: 'pending' as const };
    const other = { ...upload(owner), sizeBytes: 999 };
    const theirs = upload(uid());
    for (const m of [again, other, theirs]) {
      await media.insert(m);
      await fresh().carryOver(m.ownerId, m);
      await media.setAnalysis(m.objectKey, 'done', analysis());
    }
    const [a, o] = await media.byKeys([again.objectKey, other.objectKey]);
    expect(await read(owner, a!)).toMatchObject({ tempoCorrections: [{ kind: 'halve' }] });
    expect(((await read(owner, a!)).analysis as MusicAnalysis).bpm).toBeCloseTo(60, 3);
    expect((await read(owner, o!)).tempoCorrections).toEqual([]);
    const [t] = await media.byKeys([theirs.objectKey]);
    expect((await read(theirs.ownerId, t!)).tempoCorrections).toEqual([]);
  });

  it("corrects a library track for one user only; gone with the user's data and with the item", async () => {
    const track = libraryTrack();
    expect(await library.insertItem(track)).toBe(true);
    const m = asMedia(track);
    const [alice, bob] = [uid(), uid()];
    await fresh().correct(alice, m, parseCorrection('shift', []));
    expect(beatsOf(await read(alice, m)).slice(0, 2)).toEqual([0, 0.5]);
    expect((await read(alice, m)).tempoCorrections).toEqual([{ kind: 'shift' }]);
    // Bob sees the track as analysed; the shared item's analysis is untouched.
    expect(beatsOf(await read(bob, m))).toEqual(analysis().beats);
    expect((await library.itemsByObjectKeys([track.objectKey]))[0]!.analysis).toEqual(analysis());

    await fresh().correct(bob, m, parseCorrection('tap', [1.02, 1.52, 2.01, 2.52, 3.0]));
    expect((await read(bob, m)).tempoCorrections).toEqual([{ kind: 'tap', taps: [1.02, 1.52, 2.01, 2.52, 3] }]);

    // Account deletion takes Alice's corrections; deleting the item takes Bob's.
    await media.removeOwner(alice);
    expect((await read(alice, m)).tempoCorrections).toEqual([]);
    expect(await library.removeItem(track.key)).toBe(true);
    const [{ n }] = (await db.query<{ n: number }>('select count(*)::int as n from library_tempo_corrections')) as [{ n: number }];
    expect(n).toBe(0);
  });

  it('does not apply corrections made on another analysis (a newer engine found another tempo)', async () => {
    const { owner, m } = await storedUpload();
    const at75 = await analysedAs(m.objectKey, analysis(75));
    await fresh().correct(owner, at75, parseCorrection('double', []));
    expect(((await read(owner, at75)).analysis as MusicAnalysis).bpm).toBeCloseTo(150, 3);
    // Analysed again at 150: a "double" made for 75 would give 300. Shown as analysed instead.
    const at150 = await analysedAs(m.objectKey, analysis(150));
    const now = await read(owner, at150);
    expect(now).toMatchObject({ tempoCorrections: [], analysedBpm: 150 });
    expect((now.analysis as MusicAnalysis).bpm).toBe(150);
  });

  it('does not apply corrections made on an earlier analysis version at the same tempo (another tracker)', async () => {
    const { owner, m } = await storedUpload();
    const before = await analysedAs(m.objectKey, analysis(120));
    // A half-beat shift made where the old tracker followed the off-beat (0.25 s later: from 0).
    await fresh().correct(owner, before, parseCorrection('shift', []));
    expect(((await read(owner, before)).analysis as MusicAnalysis).beats[0]).toBe(0);
    // Analysed again by a newer tracker at the same tempo, on the beat: the shift no longer applies.
    const after = await analysedAs(m.objectKey, { ...analysis(120), version: 3 });
    const now = await read(owner, after);
    expect(now).toMatchObject({ tempoCorrections: [], analysedBpm: 120 });
    expect((now.analysis as MusicAnalysis).beats[0]).toBe(0.25);
  });

  it("keeps corrections made on an analysis with this version's beats (SAME_BEATS_SINCE on) for one with their strengths, and drops an older version's", async () => {
    const { owner, m } = await storedUpload();
    const same = await analysedAs(m.objectKey, { ...analysis(120), version: SAME_BEATS_SINCE });
    await fresh().correct(owner, same, parseCorrection('shift', []));
    const current = await analysedAs(m.objectKey, {
      ...analysis(120),
      version: MUSIC_ANALYSIS_VERSION,
      beatStrength: analysis(120).beats.map(() => 0.8),
    });
    const now = await read(owner, current);
    expect(now).toMatchObject({ tempoCorrections: [{ kind: 'shift' }], analysedBpm: 120 });
    // Shifted by half a beat, and the strengths of the beats as tracked gone with them.
    expect((now.analysis as MusicAnalysis).beats[0]).toBe(0);
    expect((now.analysis as MusicAnalysis).beatStrength).toBeUndefined();
    // A correction made on the version before SAME_BEATS_SINCE (other beats) does not apply.
    const older = await analysedAs(m.objectKey, { ...analysis(120), version: SAME_BEATS_SINCE - 1 });
    await fresh().correct(owner, older, parseCorrection('shift', []));
    expect((await read(owner, current)).tempoCorrections).toEqual([]);
  });

  it('refuses what cannot be corrected, saying why', async () => {
    const owner = uid();
    const pending = { ...upload(owner), analysisStatus: 'pending' as const };
    await expect(fresh().correct(owner, pending, { kind: 'double' })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      reason: 'analysis_pending',
    });
    const video = { ...upload(owner), kind: 'video' as const };
    await expect(fresh().correct(owner, video, { kind: 'double' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'not_audio',
    });
    const silent = { ...upload(owner), analysis: { ...analysis(), bpm: 0, beats: [], bars: [] } };
    await expect(fresh().correct(owner, silent, { kind: 'halve' })).rejects.toMatchObject({ reason: 'no_beats' });
    expect(() => parseCorrection('triple', [])).toThrow(/Unknown tempo correction "triple"/);
    expect(() => parseCorrection('tap', [1, 2])).toThrow(/Tap at least 4 times/);
  });
});
