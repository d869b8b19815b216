import { useEffect, useMemo, useRef, useState } from 'react';
import { jobRequestDefaults, type FullJobRequest, type JobRequest, type User } from '../../api/types';
import { errorDetail } from '../../app/api';
import { authOpened } from '../../app/session';
import { useAppDispatch, useAppSelector } from '../../app/store';
import type { ChosenMusic } from '../library/MusicLibraryModal';
import type { ChosenVideo } from '../library/VideoLibraryModal';
import { loadDefaults } from '../settings/defaults';
import { uploadFile, useCreateJobMutation, useEstimateQuery } from './assembly.api';
import { acceptDropped, overReelCap, readDuration, reelSeconds } from './steps';

/** The settings of step 2: the job request without its files. */
export type JobSettings = Omit<FullJobRequest, 'media_files' | 'music_file'>;

export type Phase = { kind: 'idle' } | { kind: 'uploading'; line: string } | { kind: 'submitting' } | { kind: 'job'; id: string };

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
 * Home's state and actions: the chosen files, the settings, the estimate, and Generate (upload
 * each file with progress, then create the job once per click, with an Idempotency-Key). The
 * limits and their messages come from the signed-in user's entitlements (billing decides them);
 * the checks here only spare a round trip, the server makes every one of them again.
 */
export function useJobForm(user: User | null) {
  const dispatch = useAppDispatch();
  const token = useAppSelector((s) => s.session.token);
  const [videos, setVideos] = useState<File[]>([]);
  const [audio, setAudio] = useState<File | undefined>();
  // Library clips and music: choosing them clears uploaded videos (or audio), and vice versa.
  const [libraryVideos, setLibraryVideos] = useState<ChosenVideo[]>([]);
  const [libraryMusic, setLibraryMusic] = useState<ChosenMusic | undefined>();
  const hasMusic = Boolean(audio || libraryMusic);
  const [settings, setSettings] = useState<JobSettings>(initialSettings);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [error, setError] = useState('');
  const [createJob] = useCreateJobMutation();

  // Each chosen file's duration, read once by the browser: the reel's length is priced and capped by plan.
  const [durations, setDurations] = useState(() => new Map<File, number>());
  const requested = useRef(new WeakSet<File>());
  useEffect(() => {
    for (const f of [...videos, ...(audio ? [audio] : [])]) {
      if (requested.current.has(f)) continue;
      requested.current.add(f);
      void readDuration(f).then((s) => setDurations((d) => new Map(d).set(f, s)));
    }
  }, [videos, audio]);

  const totalBytes = useMemo(
    () => [...videos, ...(audio ? [audio] : []), ...libraryVideos, ...(libraryMusic ? [libraryMusic] : [])].reduce((n, f) => n + f.size, 0),
    [videos, audio, libraryVideos, libraryMusic],
  );
  const outputSeconds = reelSeconds(
    [...videos.map((v) => durations.get(v)), ...libraryVideos.map((v) => v.duration)],
    audio ? durations.get(audio) : libraryMusic?.duration,
    hasMusic,
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

  const update = (patch: Partial<JobSettings>) => setSettings((s) => ({ ...s, ...patch }));
  const updateTitle = (patch: Partial<JobSettings['title_config']>) =>
    setSettings((s) => ({ ...s, title_config: { ...s.title_config, ...patch } }));

  const addFiles = (files: File[]) => {
    const { videos: v, audio: a } = acceptDropped(files, Boolean(audio));
    setVideos((prev) => [...prev, ...v]);
    if (v.length) setLibraryVideos([]);
    if (a) {
      setAudio(a);
      setLibraryMusic(undefined);
    }
    setError('');
  };

  const generate = async () => {
    setError('');
    if (!user || !ent) return dispatch(authOpened({ mode: 'signin' }));
    if (!videos.length && !libraryVideos.length) return setError('Please add at least one video file or select from library.');
    if (totalBytes > ent.upload_cap_bytes) return setError(ent.messages.upload);
    if (outputSeconds !== undefined && overReelCap(outputSeconds, ent.reel_cap_seconds)) return setError(ent.messages.reel_length);
    const cannotPay = !ent.unlimited && credits !== undefined && user.credits < credits && (ent.subscribed || user.daily_free_used);
    if (cannotPay) return setError(ent.messages.insufficient);
    const keys: string[] = libraryVideos.map((v) => v.object_key);
    let musicKey: string | undefined = libraryMusic?.object_key;
    for (const f of [...videos, ...(audio ? [audio] : [])]) {
      try {
        const r = await uploadFile(f, token, (x) => setPhase({ kind: 'uploading', line: `Uploading ${f.name}… ${Math.round(x * 100)}%` }));
        if (f === audio) musicKey = r.object_key;
        else keys.push(r.object_key);
      } catch (e) {
        setPhase({ kind: 'idle' });
        return setError(`Failed to upload ${f.name}: ${(e as Error).message}`);
      }
    }
    setPhase({ kind: 'submitting' });
    const request: JobRequest = {
      ...settings,
      media_files: keys,
      music_file: musicKey,
      // Beat mapping is sent as on only if music is present.
      enable_beat_mapping: settings.enable_beat_mapping && Boolean(musicKey),
    };
    try {
      const { job_id } = await createJob({ request, idempotencyKey: crypto.randomUUID() }).unwrap();
      setPhase({ kind: 'job', id: job_id });
    } catch (e) {
      setPhase({ kind: 'idle' });
      setError(errorDetail(e, 'Job creation failed'));
    }
  };

  const reset = (clearFiles: boolean) => {
    setPhase({ kind: 'idle' });
    setError('');
    if (clearFiles) {
      setVideos([]);
      setAudio(undefined);
      setLibraryVideos([]);
      setLibraryMusic(undefined);
    }
  };

  return {
    videos,
    audio,
    removeVideo: (i: number) => setVideos((v) => v.filter((_, j) => j !== i)),
    removeAudio: () => setAudio(undefined),
    libraryVideos,
    libraryMusic,
    hasMusic,
    chooseLibraryVideos: (list: ChosenVideo[]) => {
      setLibraryVideos(list);
      if (list.length) setVideos([]);
      setError('');
    },
    chooseLibraryMusic: (m: ChosenMusic | undefined) => {
      setLibraryMusic(m);
      if (m) setAudio(undefined);
      setError('');
    },
    addFiles,
    settings,
    update,
    updateTitle,
    credits,
    shortOfCredits,
    phase,
    error,
    busy: phase.kind !== 'idle',
    generate,
    reset,
  };
}
export type JobForm = ReturnType<typeof useJobForm>;
