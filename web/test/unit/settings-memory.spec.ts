import {
  SETTINGS_ACCOUNTS,
  SETTINGS_KEY,
  accountLeft,
  recallSettings,
  rememberSettings,
  settingsOnAccount,
} from '../../src/features/assembly/settingsMemory';

const memory = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), map: m };
};
const base = {
  pacing_preset: 'standard',
  aspect: '16:9',
  enable_fades: true,
  title_config: { enabled: true, text: 'My Awesome Video', font_size: 72 },
};

describe('Home settings across sign-out and sign-in', () => {
  it('come back for the account that chose them, and not for another', () => {
    const store = memory();
    rememberSettings(store, 'ann', {
      ...base,
      pacing_preset: 'high-energy',
      aspect: '9:16',
      target_duration_sec: 30,
      title_config: { ...base.title_config, text: 'Ann’s reel' },
    });
    expect(recallSettings(store, 'ann', base, ['target_duration_sec'])).toEqual({
      ...base,
      pacing_preset: 'high-energy',
      aspect: '9:16',
      target_duration_sec: 30,
      title_config: { ...base.title_config, text: 'Ann’s reel' },
    });
    expect(recallSettings(store, 'bob', base)).toBeNull();
  });

  it('keeps the whole-song length (none) and leaves out fields of the wrong kind or no longer there', () => {
    const store = memory();
    rememberSettings(store, 'ann', { ...base, target_duration_sec: null, enable_fades: 'yes', gone: 1, title_config: { font_size: '9' } });
    expect(recallSettings(store, 'ann', base, ['target_duration_sec'])).toEqual({ ...base, target_duration_sec: null });
  });

  it('keeps the most recent accounts only, and survives a damaged entry', () => {
    const store = memory();
    for (let i = 0; i <= SETTINGS_ACCOUNTS; i++) rememberSettings(store, `u${i}`, { ...base, aspect: '1:1' });
    expect(recallSettings(store, 'u0', base)).toBeNull();
    expect(recallSettings(store, `u${SETTINGS_ACCOUNTS}`, base)?.aspect).toBe('1:1');
    store.setItem(SETTINGS_KEY, '{not json');
    expect(recallSettings(store, 'u1', base)).toBeNull();
  });

  it('knows when the account on the page went', () => {
    expect(accountLeft('ann', null)).toBe(true);
    expect(accountLeft('ann', 'bob')).toBe(true);
    expect(accountLeft(null, 'ann')).toBe(false);
    expect(accountLeft('ann', 'ann')).toBe(false);
  });

  it("on a switch straight from one account to another, Home leaves the first one's settings and recalls the second's", () => {
    const store = memory();
    const fresh = () => ({ ...base, title_config: { ...base.title_config } });
    const recall = (owner: string, b: typeof base) => recallSettings(store, owner, b);
    const ann = { ...base, pacing_preset: 'high-energy', title_config: { ...base.title_config, text: 'Ann’s reel' } };
    rememberSettings(store, 'ann', ann);
    // Ann changed her settings (touched), then Bob signs in with no signed-out page between.
    // Bob has nothing remembered: the defaults, not Ann's title.
    expect(settingsOnAccount('ann', 'bob', true, fresh, recall)).toEqual(base);
    // Bob has settings remembered: his come back, though Ann had touched hers.
    rememberSettings(store, 'bob', { ...base, aspect: '9:16' });
    expect(settingsOnAccount('ann', 'bob', true, fresh, recall)).toEqual({ ...base, aspect: '9:16' });
    // Signing out: the defaults.
    expect(settingsOnAccount('ann', null, true, fresh, recall)).toEqual(base);
    // A visitor who changed settings and then signs in keeps them; untouched, the account's come back.
    expect(settingsOnAccount(null, 'ann', true, fresh, recall)).toBeNull();
    expect(settingsOnAccount(null, 'ann', false, fresh, recall)).toEqual(ann);
    expect(settingsOnAccount(null, 'carl', false, fresh, recall)).toBeNull();
    // The same account again: nothing changes.
    expect(settingsOnAccount('ann', 'ann', false, fresh, recall)).toBeNull();
    expect(settingsOnAccount(null, null, false, fresh, recall)).toBeNull();
  });
});
