import type { TrayItem } from './tray';

/**
 * The media tray across a reload: the uploads already stored (their object keys, names and sizes,
 * in tray order) are remembered in this browser for the account that made them. On load the page
 * asks the server for each one again (`/uploads/info`): the ones it still has reappear, the rest
 * (expired unused, or deleted) are forgotten. Files still uploading when the page went away are
 * not kept: their bytes never reached the server.
 */
export const TRAY_KEY = 'reelsmith.home.tray';

export interface RememberedUpload {
  objectKey: string;
  name: string;
  size: number;
  kind: 'video' | 'audio';
}
export interface RememberedTray {
  owner: string;
  clips: RememberedUpload[];
  music?: RememberedUpload;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const keep = (i: TrayItem): RememberedUpload | null =>
  i.source === 'upload' && i.state === 'ready' && i.objectKey ? { objectKey: i.objectKey, name: i.name, size: i.size, kind: i.kind } : null;

/** Saves the stored uploads of `owner`'s tray (nothing stored: forgets the tray). */
export function rememberTray(store: Store, owner: string, clips: readonly TrayItem[], music: TrayItem | undefined): void {
  const kept = clips.map(keep).filter((x): x is RememberedUpload => x !== null);
  const m = music ? keep(music) : null;
  if (!kept.length && !m) return store.removeItem(TRAY_KEY);
  const tray: RememberedTray = { owner, clips: kept, ...(m ? { music: m } : {}) };
  store.setItem(TRAY_KEY, JSON.stringify(tray));
}

const valid = (u: unknown): u is RememberedUpload => {
  const r = u as RememberedUpload | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.objectKey === 'string' &&
    r.objectKey !== '' &&
    typeof r.name === 'string' &&
    typeof r.size === 'number' &&
    (r.kind === 'video' || r.kind === 'audio')
  );
};

/** `owner`'s remembered tray; null when there is none, it is another account's, or it is unreadable. */
export function recallTray(store: Store, owner: string): RememberedTray | null {
  let raw: unknown;
  try {
    raw = JSON.parse(store.getItem(TRAY_KEY) ?? 'null');
  } catch {
    return null;
  }
  const t = raw as RememberedTray | null;
  if (!t || typeof t !== 'object' || t.owner !== owner || !Array.isArray(t.clips)) return null;
  const clips = t.clips.filter(valid);
  const music = valid(t.music) ? t.music : undefined;
  return clips.length || music ? { owner, clips, ...(music ? { music } : {}) } : null;
}

/** A remembered upload as a tray item again, with the server's current probe (`info`). */
export function restoredItem(
  r: RememberedUpload,
  info: { duration_sec: number; width: number; height: number; thumbnail_url: string | null },
): TrayItem {
  return {
    id: `kept-${r.objectKey}`,
    kind: r.kind,
    name: r.name,
    size: r.size,
    source: 'upload',
    state: 'ready',
    progress: 1,
    objectKey: r.objectKey,
    durationSec: info.duration_sec || undefined,
    width: info.width,
    height: info.height,
    thumbnailUrl: info.thumbnail_url,
  };
}
