import type { TrayItem } from '../../src/features/assembly/tray';
import { TRAY_KEY, recallTray, rememberTray, restoredItem } from '../../src/features/assembly/trayMemory';

const store = () => {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    raw: m,
  };
};
const item = (name: string, p: Partial<TrayItem> = {}): TrayItem => ({
  id: name,
  kind: 'video',
  name,
  size: 1000,
  source: 'upload',
  state: 'ready',
  progress: 1,
  objectKey: `uploads/u1/${name}`,
  ...p,
});

describe("the media tray's memory across a reload", () => {
  it('keeps the stored uploads in tray order, and not the ones still uploading, refused or from the library', () => {
    const s = store();
    rememberTray(
      s,
      'u1',
      [
        item('b.mp4'),
        item('a.mkv'),
        item('slow.mov', { state: 'uploading', objectKey: undefined }),
        item('notes.mp4', { state: 'refused', objectKey: undefined }),
        item('stock.mp4', { source: 'library' }),
      ],
      item('beat.mp3', { kind: 'audio' }),
    );
    const t = recallTray(s, 'u1');
    expect(t?.clips.map((c) => c.name)).toEqual(['b.mp4', 'a.mkv']);
    expect(t?.music).toEqual({ objectKey: 'uploads/u1/beat.mp3', name: 'beat.mp3', size: 1000, kind: 'audio' });
  });
  it('another account never sees it, and an emptied tray or unreadable memory is nothing', () => {
    const s = store();
    rememberTray(s, 'u1', [item('a.mp4')], undefined);
    expect(recallTray(s, 'u2')).toBeNull();
    rememberTray(s, 'u1', [], undefined);
    expect(s.raw.has(TRAY_KEY)).toBe(false);
    s.setItem(TRAY_KEY, '{not json');
    expect(recallTray(s, 'u1')).toBeNull();
    s.setItem(TRAY_KEY, JSON.stringify({ owner: 'u1', clips: [{ objectKey: 42 }] }));
    expect(recallTray(s, 'u1')).toBeNull();
  });
  it("a remembered upload comes back ready, with the server's probe", () => {
    const back = restoredItem(
      { objectKey: 'uploads/u1/a.mp4', name: 'a.mp4', size: 2048, kind: 'video' },
      { duration_sec: 6.5, width: 1920, height: 1080, thumbnail_url: '/t.jpg' },
    );
    expect(back).toMatchObject({
      name: 'a.mp4',
      state: 'ready',
      objectKey: 'uploads/u1/a.mp4',
      durationSec: 6.5,
      width: 1920,
      thumbnailUrl: '/t.jpg',
    });
  });
});
