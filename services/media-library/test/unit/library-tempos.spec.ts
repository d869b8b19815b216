import type { MusicAnalysis } from '@reelsmith/engine';
import type { MediaRecord } from '../../src/domain/media.service';
import { TempoService, type StoredCorrection, type TempoRepository } from '../../src/domain/tempo.service';

/** A steady analysis over 10 s at `bpm`. */
function analysis(bpm: number): MusicAnalysis {
  const p = 60 / bpm;
  const beats: number[] = [];
  for (let t = 0.25; t < 10; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec: 10, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 };
}

function track(objectKey: string, bpm: number): MediaRecord {
  return {
    id: objectKey,
    ownerId: '',
    objectKey,
    kind: 'audio',
    displayName: `${objectKey}.mp3`,
    sizeBytes: 1,
    durationSec: 10,
    width: 0,
    height: 0,
    videoCodec: '',
    audioCodec: 'mp3',
    thumbnailKey: '',
    analysisStatus: 'done',
    analysis: analysis(bpm),
    library: true,
  };
}

/** Corrections by owner and object key; records what was asked. */
function repo(rows: Record<string, Record<string, StoredCorrection>>) {
  const asked: string[][] = [];
  const r: TempoRepository = {
    forOwner: async (ownerId, media) => {
      asked.push(media.map((m) => `${m.library ? 'library' : 'upload'}:${m.objectKey}`));
      const mine = rows[ownerId] ?? {};
      return new Map(media.filter((m) => mine[m.objectKey]).map((m) => [m.objectKey, mine[m.objectKey]!]));
    },
    sameFile: async () => null,
    set: async () => undefined,
  };
  return { r, asked };
}

/**
 * A music library page as one user sees it: the tempo after their corrections of a track, read
 * from the analyses of the tracks they corrected only.
 */
describe('TempoService.libraryTempos', () => {
  const tracks = [track('library/audio/a.mp3', 75), track('library/audio/b.mp3', 120), track('library/audio/c.mp3', 90)];
  const keys = tracks.map((t) => t.objectKey);

  it("gives a user's corrected tracks their corrected tempo, reading only those tracks' analyses", async () => {
    const { r, asked } = repo({
      alice: {
        'library/audio/a.mp3': { baseBpm: 75, baseVersion: 2, corrections: [{ kind: 'double' }] },
        'library/audio/c.mp3': { baseBpm: 90, baseVersion: 2, corrections: [{ kind: 'halve' }] },
      },
    });
    const read: string[][] = [];
    const analysed = async (ks: string[]) => {
      read.push(ks);
      return tracks.filter((t) => ks.includes(t.objectKey));
    };
    const tempos = await new TempoService(r).libraryTempos('alice', keys, analysed);
    expect(Object.fromEntries(tempos)).toEqual({ 'library/audio/a.mp3': 150, 'library/audio/c.mp3': 45 });
    expect(asked).toEqual([keys.map((k) => `library:${k}`)]);
    expect(read).toEqual([['library/audio/a.mp3', 'library/audio/c.mp3']]);
  });

  it('reads no analysis for a user without corrections of the page, and asks nothing for a signed-out visitor', async () => {
    const { r, asked } = repo({ alice: { 'library/audio/a.mp3': { baseBpm: 75, baseVersion: 2, corrections: [{ kind: 'double' }] } } });
    const analysed = jest.fn(async () => tracks);
    expect((await new TempoService(r).libraryTempos('bob', keys, analysed)).size).toBe(0);
    expect(asked).toHaveLength(1);
    expect((await new TempoService(r).libraryTempos('', keys, analysed)).size).toBe(0);
    expect(asked).toHaveLength(1);
    expect(analysed).not.toHaveBeenCalled();
  });

  it('leaves out corrections made on another tempo than the current analysis (stale), as the plan does', async () => {
    const { r } = repo({ alice: { 'library/audio/b.mp3': { baseBpm: 60, baseVersion: 2, corrections: [{ kind: 'double' }] } } });
    const tempos = await new TempoService(r).libraryTempos('alice', keys, async (ks) => tracks.filter((t) => ks.includes(t.objectKey)));
    expect(tempos.size).toBe(0);
  });

  it("shows a music page with the user's own tempos, and a video page or a visitor's page as listed", async () => {
    const { r } = repo({ alice: { 'library/audio/a.mp3': { baseBpm: 75, baseVersion: 2, corrections: [{ kind: 'double' }] } } });
    const t = new TempoService(r);
    const listed = keys.map((objectKey, i) => ({ objectKey, bpm: [75, 120, 90][i]! }));
    const analysed = async (ks: string[]) => tracks.filter((x) => ks.includes(x.objectKey));
    expect((await t.asSeenBy('alice', 'audio', listed, analysed)).map((i) => i.bpm)).toEqual([150, 120, 90]);
    expect(await t.asSeenBy('alice', 'video', listed, analysed)).toBe(listed);
    expect(await t.asSeenBy('', 'audio', listed, analysed)).toBe(listed);
  });

  it('rounds to a tenth of a BPM, as the library lists tempos', async () => {
    const odd = track('library/audio/d.mp3', 83.333);
    const { r } = repo({ alice: { [odd.objectKey]: { baseBpm: 83.333, baseVersion: 2, corrections: [{ kind: 'double' }] } } });
    const tempos = await new TempoService(r).libraryTempos('alice', [odd.objectKey], async () => [odd]);
    expect(tempos.get(odd.objectKey)).toBe(166.7);
  });
});
