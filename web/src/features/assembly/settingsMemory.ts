/**
 * Home's settings (pacing, shape, length, title and the rest of step 2) across sign-out and
 * sign-in, as the media tray is (trayMemory.ts): remembered in this browser per account, the few
 * accounts used here most recently. On sign-in the account's settings come back, unless the
 * visitor already changed some before signing in. Pure over a Storage, tested alone.
 */
export const SETTINGS_KEY = 'reelsmith.home.settings';
/** How many accounts' settings one browser keeps (a shared computer). */
export const SETTINGS_ACCOUNTS = 5;

type Store = Pick<Storage, 'getItem' | 'setItem'>;
type Saved = Array<{ owner: string; settings: Record<string, unknown> }>;

function read(store: Store): Saved {
  try {
    const v = JSON.parse(store.getItem(SETTINGS_KEY) ?? '[]') as unknown;
    return Array.isArray(v)
      ? v.filter(
          (x): x is Saved[number] =>
            typeof x === 'object' &&
            x !== null &&
            typeof (x as Saved[number]).owner === 'string' &&
            typeof (x as Saved[number]).settings === 'object',
        )
      : [];
  } catch {
    return [];
  }
}

/** Saves `owner`'s settings (most recent first). */
export function rememberSettings(store: Store, owner: string, settings: object): void {
  const rest = read(store).filter((x) => x.owner !== owner);
  store.setItem(SETTINGS_KEY, JSON.stringify([{ owner, settings }, ...rest].slice(0, SETTINGS_ACCOUNTS)));
}

/** Whether a remembered value may stand for the default's: the same type (a length may also be none). */
const sameKind = (saved: unknown, base: unknown): boolean => {
  if (base === null || base === undefined || saved === null) return base === saved;
  if (typeof base !== typeof saved) return false;
  if (typeof base === 'object') return !Array.isArray(saved) && saved !== null;
  return true;
};

/**
 * `owner`'s remembered settings laid over `base` (the defaults), field by field where the kinds
 * agree (a field the app no longer has, or of the wrong kind, is left out); `optional` names the
 * fields without a default that are a number or none (the reel's length). Null when none is kept.
 */
export function recallSettings<T extends object>(store: Store, owner: string, base: T, optional: readonly string[] = []): T | null {
  const found = read(store).find((x) => x.owner === owner);
  if (!found) return null;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const k of optional) {
    const v = found.settings[k];
    if (v === null || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
  }
  for (const [k, b] of Object.entries(base)) {
    const v = found.settings[k];
    if (v === undefined || !sameKind(v, b)) continue;
    out[k] =
      b && typeof b === 'object' ? { ...(b as object), ...recallFields(v as Record<string, unknown>, b as Record<string, unknown>) } : v;
  }
  return out as T;
}

const recallFields = (saved: Record<string, unknown>, base: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(base).flatMap(([k, b]) => (saved[k] !== undefined && sameKind(saved[k], b) ? [[k, saved[k]]] : [])));

/** Whether the account on the page went (signed out, or another signed in): what was on Home was theirs. */
export const accountLeft = (before: string | null, now: string | null) => before !== null && before !== now;

/**
 * Home's settings when the account on the page changes from `before` (the one they were recalled
 * for) to `owner`, or null to keep them. When an account went (sign-out, or straight to another
 * account) its settings go with it: Home starts again from `fresh()` and what was touched is
 * forgotten. A signed-in account's remembered settings then come back, unless a signed-out visitor
 * already changed some.
 */
export function settingsOnAccount<T>(
  before: string | null,
  owner: string | null,
  touched: boolean,
  fresh: () => T,
  recall: (owner: string, base: T) => T | null,
): T | null {
  if (before === owner) return null;
  const left = accountLeft(before, owner);
  if (!owner) return fresh();
  if (touched && !left) return null;
  const base = fresh();
  return recall(owner, base) ?? (left ? base : null);
}
