import type { Pacing } from '../../api/types';

/** Default settings kept in the browser (spec section 3), applied to new reels on Home. */
export interface DefaultSettings {
  defaultPacing: Pacing;
  defaultEnableBeatMapping: boolean;
  defaultEnableIntelligence: boolean;
  defaultEnableFades: boolean;
  defaultEnableLetterbox: boolean;
  defaultGetFootageOffers: boolean;
  defaultUseLibraryVideo: boolean;
  defaultUseLibraryAudio: boolean;
}

export const FACTORY_DEFAULTS: DefaultSettings = {
  defaultPacing: 'standard',
  defaultEnableBeatMapping: true,
  defaultEnableIntelligence: true,
  defaultEnableFades: true,
  defaultEnableLetterbox: true,
  defaultGetFootageOffers: false,
  defaultUseLibraryVideo: false,
  defaultUseLibraryAudio: false,
};

const KEY = 'reelsmith.default_settings';

export function loadDefaults(): DefaultSettings {
  try {
    return { ...FACTORY_DEFAULTS, ...(JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<DefaultSettings>) };
  } catch {
    return FACTORY_DEFAULTS;
  }
}

export const saveDefaults = (s: DefaultSettings) => localStorage.setItem(KEY, JSON.stringify(s));
