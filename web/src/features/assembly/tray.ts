/**
 * Home's media tray, as data: each clip or music track the user added, from a local file (uploaded
 * as soon as it is added) or from a library (already stored). Pure helpers, tested on their own.
 */

export type TrayState = 'waiting' | 'uploading' | 'ready' | 'refused';

export interface TrayItem {
  /** Stable id for React keys and moves. */
  id: string;
  kind: 'video' | 'audio';
  name: string;
  size: number;
  source: 'upload' | 'library';
  state: TrayState;
  /** Upload progress, 0..1. */
  progress: number;
  /** The server's reason when it refused the file. */
  error?: string;
  objectKey?: string;
  durationSec?: number;
  width?: number;
  height?: number;
  thumbnailUrl?: string | null;
  /** Where the browser can play it (an object URL of the local file), for the instant preview. */
  playableUrl?: string;
  /** Library music: the tempo the library knows. */
  bpm?: number;
}

/** The list with the item at `from` moved to `to` (both clamped); the same list when nothing moves. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  const target = Math.max(0, Math.min(list.length - 1, to));
  if (from < 0 || from >= list.length || from === target) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(target, 0, item!);
  return next;
}

/** 75.4 -> "1:15"; 3725 -> "1:02:05". */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** 1920x1080 -> "1080p"; 1080x1920 -> "1080p portrait"; 3840x2160 -> "4K". */
export function resolutionLabel(width?: number, height?: number): string {
  if (!width || !height) return '';
  const short = Math.min(width, height);
  const name = short >= 2160 ? '4K' : `${short}p`;
  return width < height ? `${name} portrait` : name;
}

/** Every item is stored (or refused and left out): the request can be built. */
export const allSettled = (items: readonly TrayItem[]) => items.every((i) => i.state === 'ready' || i.state === 'refused');

/** The stored items, in tray order (refused ones are shown, never sent). */
export const usable = (items: readonly TrayItem[]) => items.filter((i) => i.state === 'ready' && i.objectKey);

/** At most this many uploads run at once; the rest wait their turn. */
export const PARALLEL_UPLOADS = 3;

/** The next items to start uploading, given how many already are. */
export function nextToUpload(items: readonly TrayItem[]): TrayItem[] {
  const running = items.filter((i) => i.state === 'uploading').length;
  return items.filter((i) => i.state === 'waiting').slice(0, Math.max(0, PARALLEL_UPLOADS - running));
}

/** A numeric field's draft: the number it holds if it is one within [min, max], else the message to show. */
export function checkNumber(draft: string, label: string, limits: { min?: number; max?: number }, integer = false): number | string {
  const text = draft.trim();
  if (!text) return `${label} is required`;
  const n = Number(text);
  if (!Number.isFinite(n)) return `${label} must be a number`;
  if (integer && !Number.isInteger(n)) return `${label} must be a whole number`;
  if (limits.min !== undefined && n < limits.min) return `${label} must be at least ${limits.min}`;
  if (limits.max !== undefined && n > limits.max) return `${label} must be at most ${limits.max}`;
  return n;
}
