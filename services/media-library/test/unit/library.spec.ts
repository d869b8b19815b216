import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '@reelsmith/kit/testing';
import { quietLogger } from '@reelsmith/kit/testing';
import {
  CATALOGUE_CHECK_MS,
  LibraryService,
  importMany,
  normaliseCategory,
  type ImportOutcome,
  type LibraryFile,
  type LibraryItem,
  type LibraryObjects,
  type LibraryRepository,
  type LibraryTools,
} from '../../src/domain/library.service';
import { listLibraryFiles } from '../../src/repositories/library-files';

describe('library import rules', () => {
  it('names categories from folder names, lower case, and "general" for nothing usable', () => {
    expect(normaliseCategory(' Nature Clips ')).toBe('nature clips');
    expect(normaliseCategory('Städte')).toBe('städte');
    expect(normaliseCategory('***')).toBe('general');
  });

  it('finds media under a folder with the first subfolder as category, skipping licence notes, videos first', () => {
    const d = tempDir('libfiles');
    try {
      for (const f of ['a.mp4', 'a.mp4.LICENSE.txt', 'Nature/deep/b.mov', 'music/c.mp3', 'README.md', '.hidden.mp4']) {
        fs.mkdirSync(path.dirname(path.join(d.dir, f)), { recursive: true });
        fs.writeFileSync(path.join(d.dir, f), 'x');
      }
      expect(listLibraryFiles(d.dir).map((f) => [f.relative, f.category])).toEqual([
        ['a.mp4', 'general'],
        [path.join('Nature', 'deep', 'b.mov'), 'Nature'],
        [path.join('music', 'c.mp3'), 'music'],
      ]);
    } finally {
      d.remove();
    }
  });

  it('imports the rest when one file fails, and reports it by name', async () => {
    const files: LibraryFile[] = ['a.mp4', 'bad.mp4', 'c.mp3'].map((n) => ({ path: n, relative: n, filename: n, category: 'general' }));
    const lines: string[] = [];
    const summary = await importMany(
      files,
      async (f) => {
        if (f.filename === 'bad.mp4') throw new Error('bad.mp4: not a video or audio file we can read');
        return { outcome: f.filename === 'c.mp3' ? 'duplicate' : 'imported', item: {} } as ImportOutcome;
      },
      (done, total, f, r) => lines.push(`${done}/${total} ${f.relative} ${'error' in r ? 'skipped' : r.outcome}`),
    );
    expect(summary).toEqual({
      imported: 1,
      duplicates: 1,
      failed: [{ file: 'bad.mp4', error: 'bad.mp4: not a video or audio file we can read' }],
    });
    expect(lines).toEqual(['1/3 a.mp4 imported', '2/3 bad.mp4 skipped', '3/3 c.mp3 duplicate']);
  });
});

describe('the library catalogue', () => {
  const item = (filename: string, category: string, kind: 'video' | 'audio' = 'video') =>
    ({ key: filename, filename, category, kind, objectKey: `library/${filename}` }) as LibraryItem;
  const setup = () => {
    const rows: LibraryItem[] = [
      item('b.mp4', 'city'),
      item('A.mp4', 'nature'),
      item('c.mp4', 'Nature'.toLowerCase()),
      item('x.mp3', 'beats', 'audio'),
    ];
    let loads = 0;
    const repo = {
      listed: async () => {
        loads++;
        return [...rows];
      },
      stamp: async () => `${rows.length}`,
    } as unknown as LibraryRepository;
    return { rows, repo, lib: new LibraryService(repo, undefined as never, undefined as never, quietLogger()), loads: () => loads };
  };

  it('searches filename or category case-insensitively, filters by category, pages, and counts all matches', async () => {
    const { lib } = setup();
    const all = await lib.list('video', '', '', 50, 0);
    expect(all.items.map((i) => i.filename)).toEqual(['A.mp4', 'b.mp4', 'c.mp4']);
    expect(all.categories).toEqual(['city', 'nature']);
    expect((await lib.list('video', 'NATU', '', 50, 0)).items.map((i) => i.filename)).toEqual(['A.mp4', 'c.mp4']);
    expect((await lib.list('video', '  ', 'city', 50, 0)).items.map((i) => i.filename)).toEqual(['b.mp4']);
    const page = await lib.list('video', '', '', 2, 2);
    expect([page.items.map((i) => i.filename), page.total]).toEqual([['c.mp4'], 3]);
    expect((await lib.list('audio', '', '', 50, 0)).total).toBe(1);
  });

  it("sees another process's import once its check interval has passed, without reloading on every list", async () => {
    const { rows, lib, loads } = setup();
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      await lib.list('video', '', '', 50, 0);
      rows.push(item('d.mp4', 'city'));
      expect((await lib.list('video', '', '', 50, 0)).total).toBe(3);
      now += CATALOGUE_CHECK_MS + 1;
      await lib.list('video', '', '', 50, 0); // answered from what is loaded; the check runs
      await new Promise((r) => setTimeout(r, 10));
      expect((await lib.list('video', '', '', 50, 0)).total).toBe(4);
      expect(loads()).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('library analyses of an older engine', () => {
  it('are redone one at a time at start, with the new tempo; a failure keeps the old analysis', async () => {
    const items = [
      { key: 'song', kind: 'audio', objectKey: 'library/audio/song.mp3', durationSec: 30, bpm: 86 },
      { key: 'broken', kind: 'audio', objectKey: 'library/audio/broken.mp3', durationSec: 20, bpm: 120 },
    ] as LibraryItem[];
    const set: Array<[string, string, unknown, number]> = [];
    const repo = {
      // Each claim hands out the next unclaimed item (a failed one stays claimed).
      claimStaleItem: async (versions: Record<string, number>) => (versions.audio === 3 ? (items.shift() ?? null) : null),
      setItemAnalysis: async (key: string, status: string, analysis: unknown, bpm: number) => void set.push([key, status, analysis, bpm]),
      listed: async () => [],
      stamp: async () => '0',
    } as unknown as LibraryRepository;
    const objects = { withLocalFile: (key: string, fn: (p: string) => Promise<unknown>) => fn(`/tmp/${key}`) } as unknown as LibraryObjects;
    let running = 0;
    let most = 0;
    const tools = {
      analysisVersions: { video: 2, audio: 3 },
      analyse: async (p: string) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (p.includes('broken')) throw new Error('decoder crashed');
        return { version: 3, bpm: 172.04 };
      },
    } as unknown as LibraryTools;
    const lib = new LibraryService(repo, objects, tools, quietLogger());
    expect(await lib.refreshStale()).toEqual({ refreshed: 1, failed: 1 });
    expect(set).toEqual([['song', 'done', { version: 3, bpm: 172.04 }, 172]]);
    expect(most).toBe(1);
    // Stopping (a shutdown) ends it between items: nothing more is claimed.
    set.length = 0;
    items.push({ key: 'later', kind: 'audio', objectKey: 'library/audio/later.mp3', durationSec: 30, bpm: 86 } as LibraryItem);
    expect(await lib.refreshStale(() => true)).toEqual({ refreshed: 0, failed: 0 });
    expect([set, items.length]).toEqual([[], 1]);
  });
});

describe('a clip bought from the footage marketplace', () => {
  const clip = {
    clipId: 'clip-1',
    objectKey: 'marketplace/clips/clip-1.mp4',
    filename: 'Harbour.mp4',
    uploaderUserId: 'u1',
    uploaderEmail: 'maker@example.com',
  };
  const setup = (existing: LibraryItem | null, sourceExists: boolean) => {
    const copies: Array<[string, string]> = [];
    const repo = { itemBySourceClip: async () => existing } as unknown as LibraryRepository;
    const objects = {
      copy: async (from: string, to: string) => {
        copies.push([from, to]);
        return sourceExists;
      },
    } as unknown as LibraryObjects;
    return { copies, lib: new LibraryService(repo, objects, undefined as never, quietLogger()) };
  };

  it('is added once: a repeated purchase finds the item by its clip id and copies nothing', async () => {
    const item = { key: 'k', filename: 'Harbour.mp4', category: 'community', sourceClipId: 'clip-1' } as LibraryItem;
    const { lib, copies } = setup(item, true);
    expect(await lib.importPurchased(clip)).toEqual({ outcome: 'duplicate', item });
    expect(copies).toEqual([]);
  });

  it("is copied into the library's own keys first, and reported missing when the marketplace's copy is gone", async () => {
    const { lib, copies } = setup(null, false);
    expect(await lib.importPurchased(clip)).toBe('missing');
    expect(copies).toEqual([['marketplace/clips/clip-1.mp4', 'library/incoming/marketplace-clip-1.mp4']]);
  });
});
