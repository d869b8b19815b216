import { useEffect, useMemo, useRef, useState } from 'react';
import { jobRequestDefaults, type FullJobRequest, type JobRequest, type User } from '../../api/types';
import { loadDefaults } from '../settings';
import { useEstimateQuery } from './assembly.api';
import { framingFor } from './framing';
import { accountLeft, recallSettings, rememberSettings, settingsOnAccount } from './settingsMemory';
import { knownReelSeconds } from './steps';
import { usable } from './tray';
import type { MediaTrayState } from './useMediaTray';

/** The settings of step 2: the job request without its files. */
export type JobSettings = Omit<FullJobRequest, 'media_files' | 'music_file'>;

/** The server's defaults, with the user's saved default settings on top (spec section 3). */
function initialSettings(): JobSettings {
  const d = loadDefaults();
  return {
    ...(jobRequestDefaults as unknown as JobSettings),
    pacing_preset: d.defaultPacing,
    enable_beat_mapping: d.defaultEnableBeatMapping,
    enable_intelligence: d.defaultEnableIntelligence,
    enable_fades: d.defaultEnableFades,
    enable_letterbox: d.defaultEnableLetterbox,
    get_footage_offers: d.defaultGetFootageOffers,
  };
}

/**
 * Home's settings (step 2) and what follows from them and the tray: the reel's length, its price
 * (billing's estimate), and the job request as Generate sends it. `edited` is called on every
 * change to what would be rendered.
 */
export function useJobRequest(user: User | null, tray: MediaTrayState, edited: () => void) {
  const { clips, music, hasMusic, uploading } = tray;
  const [settings, setSettings] = useState<JobSettings>(initialSettings);
  const [settingsProblems, setSettingsProblems] = useState<Record<string, string>>({});

  // The settings are remembered for the account in this browser, as the tray is: on sign-in they
  // come back (unless the visitor already changed some); on sign-out, or a switch straight to
  // another account, Home goes back to the defaults (then the new account's own settings).
  const owner = user?.id ?? null;
  const recalledFor = useRef<string | null>(null);
  const touched = useRef(false);
  // Set while the settings on Home are about to be replaced: the old ones are not saved under the new account.
  const replacing = useRef(false);
  useEffect(() => {
    const before = recalledFor.current;
    recalledFor.current = owner;
    const next = settingsOnAccount(before, owner, touched.current, initialSettings, (o, base) =>
      recallSettings(localStorage, o, base, ['target_duration_sec']),
    );
    if (accountLeft(before, owner)) {
      touched.current = false;
      setSettingsProblems({});
    }
    if (next) {
      replacing.current = true;
      setSettings(next);
    }
  }, [owner]);
  useEffect(() => {
    if (replacing.current) {
      replacing.current = false;
      return;
    }
    if (owner && recalledFor.current === owner) rememberSettings(localStorage, owner, settings);
  }, [owner, settings]);

  const totalBytes = useMemo(() => [...clips, ...(music ? [music] : [])].reduce((n, f) => n + f.size, 0), [clips, music]);
  const liveClips = clips.filter((c) => c.state !== 'refused');
  const outputSeconds = knownReelSeconds(
    liveClips.map((v) => v.durationSec),
    hasMusic ? music?.durationSec : undefined,
    hasMusic,
    settings.target_duration_sec,
  );
  // Priced once the length is known ('Estimating cost…' until then), so a long reel never shows a short reel's price.
  const estimate = useEstimateQuery(
    {
      pacing_preset: settings.pacing_preset,
      has_music: hasMusic,
      total_source_bytes: totalBytes,
      output_seconds: outputSeconds ?? 0,
    },
    { skip: outputSeconds === undefined },
  );
  const credits = estimate.data?.credits;
  const ent = user?.entitlements;
  const shortOfCredits = Boolean(user && ent && !ent.unlimited && ent.subscribed && credits !== undefined && user.credits < credits);

  // Any change to what would be rendered makes a previewed plan stale.
  const update = (p: Partial<JobSettings>) => {
    touched.current = true;
    setSettings((s) => ({ ...s, ...p }));
    edited();
  };
  const updateTitle = (p: Partial<JobSettings['title_config']>) => {
    touched.current = true;
    setSettings((s) => ({ ...s, title_config: { ...s.title_config, ...p } }));
    edited();
  };

  /** The job request as Generate sends it, once every file is stored; null until then. */
  const request: JobRequest | null = useMemo(() => {
    const keys = usable(clips).map((c) => c.objectKey!);
    if (!keys.length || uploading) return null;
    const musicKey = music?.state === 'ready' ? music.objectKey : undefined;
    return {
      ...settings,
      media_files: keys,
      music_file: musicKey,
      // Beat mapping is sent as on only if music is present.
      enable_beat_mapping: settings.enable_beat_mapping && Boolean(musicKey),
      // The framing the shape tile shows, always sent (so the preview and the render agree).
      framing: framingFor(settings.aspect, settings.framing, settings.enable_letterbox !== false),
    };
  }, [clips, music, settings, uploading]);

  return {
    settings,
    update,
    updateTitle,
    setSettingsProblem: (field: string, problem: string) =>
      setSettingsProblems((p) => (p[field] === problem ? p : { ...p, [field]: problem })),
    settingsProblems,
    problems: Object.values(settingsProblems).filter(Boolean),
    totalBytes,
    outputSeconds,
    credits,
    shortOfCredits,
    request,
  };
}
