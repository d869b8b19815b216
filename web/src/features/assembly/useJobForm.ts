import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { jobRequestDefaults, type EditPlan, type FullJobRequest, type JobRequest, type User } from '../../api/types';
import { errorDetail } from '../../app/api';
import { authOpened } from '../../app/session';
import { useAppDispatch, useAppSelector } from '../../app/store';
import type { ChosenMusic, ChosenVideo } from '../library';
import { loadDefaults } from '../settings';
import { fetchUploadInfo, uploadFile, useActiveJobsQuery, useCreateJobMutation, useEstimateQuery } from './assembly.api';
import { acceptDropped, overReelCap, readDuration, reelSeconds, refusedMessage } from './steps';
import { allSettled, moveItem, nextToUpload, usable, type TrayItem } from './tray';
import { recallTray, rememberTray, restoredItem } from './trayMemory';

/** The settings of step 2: the job request without its files. */
export type JobSettings = Omit<FullJobRequest, 'media_files' | 'music_file'>;

export type Phase = { kind: 'idle' } | { kind: 'submitting' } | { kind: 'job'; id: string };

/** The job Home shows, kept across reloads until the user moves on (Create Another, Start Over). */
const JOB_KEY = 'reelsmith.home.job';
function storedJob(): { id: string; owner: string } | null {
  try {
    const v = JSON.parse(localStorage.getItem(JOB_KEY) ?? 'null') as { id?: unknown; owner?: unknown } | null;
    return v && typeof v.id === 'string' && typeof v.owner === 'string' ? { id: v.id, owner: v.owner } : null;
  } catch {
    return null;
  }
}

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

let nextId = 0;
const newId = () => `t${++nextId}`;

function fromFile(file: File): TrayItem {
  return {
    id: newId(),
    kind: file.type.startsWith('audio/') ? 'audio' : 'video',
    name: file.name,
    size: file.size,
    source: 'upload',
    state: 'waiting',
    progress: 0,
    playableUrl: URL.createObjectURL(file),
  };
}

const libraryClip = (v: ChosenVideo): TrayItem => ({
  id: `lib-${v.key}`,
  kind: 'video',
  name: v.filename,
  size: v.size,
  source: 'library',
  state: 'ready',
  progress: 1,
  objectKey: v.object_key,
  durationSec: v.duration,
  thumbnailUrl: `/api/v1/video-library/thumbnail/${encodeURIComponent(v.key)}`,
  playableUrl: `/api/v1/video-library/file/${encodeURIComponent(v.key)}`,
});

const libraryTrack = (m: ChosenMusic): TrayItem => ({
  id: `lib-${m.key}`,
  kind: 'audio',
  name: m.filename,
  size: m.size,
  source: 'library',
  state: 'ready',
  progress: 1,
  objectKey: m.object_key,
  durationSec: m.duration,
  bpm: m.bpm,
  // The library's stream (Range, public): the instant preview plays it under the edit.
  playableUrl: `/api/v1/music-library/preview/${encodeURIComponent(m.key)}`,
});

/**
 * Home's state and actions: the media tray (files upload as soon as they are added, a few at a
 * time, each with its progress; the server's refusal is shown on the file), the settings, the
 * estimate, the plan from 'Preview edit', and Generate (creates the job once per click, with an
 * Idempotency-Key). The limits and their messages come from the signed-in user's entitlements
 * (billing decides them); the checks here only spare a round trip, the server makes every one of
 * them again.
 */
export function useJobForm(user: User | null) {
  const dispatch = useAppDispatch();
  const token = useAppSelector((s) => s.session.token);
  // Uploaded clips and music (tray order is the order of media_files).
  const [uploads, setUploads] = useState<TrayItem[]>([]);
  const [musicUpload, setMusicUpload] = useState<TrayItem | undefined>();
  // Library clips and music: choosing them clears uploaded videos (or audio), and vice versa.
  const [libraryVideos, setLibraryVideos] = useState<ChosenVideo[]>([]);
  const [libraryMusic, setLibraryMusic] = useState<ChosenMusic | undefined>();
  const [settings, setSettings] = useState<JobSettings>(initialSettings);
  const [settingsProblems, setSettingsProblems] = useState<Record<string, string>>({});
  const [plan, setPlan] = useState<EditPlan | null>(null);
  const [phase, setPhase] = useState<Phase>(() => {
    const stored = storedJob();
    return stored ? { kind: 'job', id: stored.id } : { kind: 'idle' };
  });
  // The job remembered belongs to whoever started it: another account (or none) does not see it.
  useEffect(() => {
    const stored = storedJob();
    if (stored && (!token || (user && stored.owner !== user.id))) {
      localStorage.removeItem(JOB_KEY);
      setPhase((p) => (p.kind === 'job' && p.id === stored.id ? { kind: 'idle' } : p));
    }
  }, [user, token]);
  const [error, setError] = useState('');
  // Why some of the files just added were left out (a .txt, a second music track).
  const [refusedNote, setRefusedNote] = useState('');
  const [createJob] = useCreateJobMutation();

  const clips: TrayItem[] = useMemo(() => (uploads.length ? uploads : libraryVideos.map(libraryClip)), [uploads, libraryVideos]);
  const music: TrayItem | undefined = musicUpload ?? (libraryMusic ? libraryTrack(libraryMusic) : undefined);
  const hasMusic = Boolean(music && music.state !== 'refused');

  // The local files behind upload items, and how to stop an upload that is removed.
  const files = useRef(new Map<string, File>());
  const aborts = useRef(new Map<string, AbortController>());
  const patch = useCallback((id: string, p: Partial<TrayItem>) => {
    setUploads((list) => list.map((i) => (i.id === id ? { ...i, ...p } : i)));
    setMusicUpload((m) => (m?.id === id ? { ...m, ...p } : m));
  }, []);

  // Durations are read by the browser at once (the estimate), then taken from the server's probe.
  useEffect(() => {
    for (const item of [...uploads, ...(musicUpload ? [musicUpload] : [])]) {
      const f = files.current.get(item.id);
      if (!f || item.durationSec !== undefined || item.state === 'refused') continue;
      void readDuration(f).then((sec) => sec > 0 && patch(item.id, { durationSec: sec }));
    }
    // Only new items need it; a later patch sets durationSec.
  }, [uploads.length, musicUpload?.id, patch]);

  // Uploads start as soon as files are added (signed in), a few at a time.
  useEffect(() => {
    if (!token) return;
    for (const item of nextToUpload([...uploads, ...(musicUpload ? [musicUpload] : [])])) {
      const f = files.current.get(item.id);
      if (!f) continue;
      const ctrl = new AbortController();
      aborts.current.set(item.id, ctrl);
      patch(item.id, { state: 'uploading', progress: 0 });
      uploadFile(f, token, (x) => patch(item.id, { progress: x }), ctrl.signal).then(
        (r) =>
          patch(item.id, {
            state: 'ready',
            progress: 1,
            objectKey: r.object_key,
            durationSec: r.duration_sec || item.durationSec,
            width: r.width,
            height: r.height,
            thumbnailUrl: r.thumbnail_url,
          }),
        (e: Error) => {
          if (e.name !== 'AbortError') patch(item.id, { state: 'refused', error: e.message || 'Upload failed' });
        },
      );
    }
  }, [uploads, musicUpload, token, patch]);

  // The stored uploads survive a reload: remembered in this browser for this account, and on load
  // the ones the server still has come back into the tray (trayMemory.ts).
  const restoredFor = useRef<string | null>(null);
  const [trayRestored, setTrayRestored] = useState(false);
  useEffect(() => {
    if (!user || !token || restoredFor.current === user.id) return;
    restoredFor.current = user.id;
    const saved = recallTray(localStorage, user.id);
    const all = saved ? [...saved.clips, ...(saved.music ? [saved.music] : [])] : [];
    void Promise.all(all.map((r) => fetchUploadInfo(r.objectKey, token).catch(() => null))).then((infos) => {
      const back = all.flatMap((r, i) => (infos[i] ? [restoredItem(r, infos[i])] : []));
      const clipsBack = back.filter((b) => b.kind === 'video');
      const musicBack = back.find((b) => b.kind === 'audio');
      if (clipsBack.length) setUploads((prev) => [...clipsBack, ...prev.filter((p) => !clipsBack.some((c) => c.id === p.id))]);
      if (musicBack) setMusicUpload((m) => m ?? musicBack);
      setTrayRestored(true);
    });
  }, [user, token]);
  useEffect(() => {
    if (user && trayRestored) rememberTray(localStorage, user.id, uploads, musicUpload);
  }, [user, trayRestored, uploads, musicUpload]);

  // A running job is found again after a reload (or in another tab).
  const active = useActiveJobsQuery(undefined, { skip: !user || phase.kind !== 'idle' });
  useEffect(() => {
    const job = active.data?.jobs[0];
    if (job && phase.kind === 'idle') setPhase({ kind: 'job', id: job.job_id });
  }, [active.data, phase.kind]);
  useEffect(() => {
    if (phase.kind === 'job' && user) localStorage.setItem(JOB_KEY, JSON.stringify({ id: phase.id, owner: user.id }));
  }, [phase, user]);

  const totalBytes = useMemo(() => [...clips, ...(music ? [music] : [])].reduce((n, f) => n + f.size, 0), [clips, music]);
  const liveClips = clips.filter((c) => c.state !== 'refused');
  const outputSeconds = reelSeconds(
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
    setSettings((s) => ({ ...s, ...p }));
    setPlan(null);
  };
  const updateTitle = (p: Partial<JobSettings['title_config']>) => {
    setSettings((s) => ({ ...s, title_config: { ...s.title_config, ...p } }));
    setPlan(null);
  };

  const addFiles = (picked: File[]) => {
    const { videos: v, audio: a, refused, extraAudio } = acceptDropped(picked, false);
    setError('');
    setRefusedNote(refusedMessage(refused, extraAudio));
    setPlan(null);
    if (!user) dispatch(authOpened({ mode: 'signin', notice: 'Sign in to upload your files and make a reel.' }));
    if (v.length) {
      const items = v.map((f) => {
        const item = fromFile(f);
        files.current.set(item.id, f);
        return item;
      });
      setUploads((prev) => [...prev, ...items]);
      setLibraryVideos([]);
    }
    if (a) {
      const item: TrayItem = { ...fromFile(a), kind: 'audio' };
      files.current.set(item.id, a);
      if (musicUpload) drop(musicUpload);
      setMusicUpload(item);
      setLibraryMusic(undefined);
    }
  };

  /** Forgets an uploaded item (stopping its upload). */
  const drop = (item: TrayItem) => {
    aborts.current.get(item.id)?.abort();
    aborts.current.delete(item.id);
    files.current.delete(item.id);
    if (item.playableUrl?.startsWith('blob:')) URL.revokeObjectURL(item.playableUrl);
  };

  const removeClip = (id: string) => {
    setPlan(null);
    const item = uploads.find((i) => i.id === id);
    if (item) {
      drop(item);
      setUploads((list) => list.filter((i) => i.id !== id));
    } else setLibraryVideos((list) => list.filter((v) => `lib-${v.key}` !== id));
  };

  const moveClip = (from: number, to: number) => {
    setPlan(null);
    if (uploads.length) setUploads((list) => moveItem(list, from, to));
    else setLibraryVideos((list) => moveItem(list, from, to));
  };

  const removeMusic = () => {
    setPlan(null);
    if (musicUpload) drop(musicUpload);
    setMusicUpload(undefined);
    setLibraryMusic(undefined);
  };

  const uploading = !allSettled([...clips, ...(music ? [music] : [])]);
  const problems = Object.values(settingsProblems).filter(Boolean);

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
    };
  }, [clips, music, settings, uploading]);

  const generate = async () => {
    setError('');
    if (!user || !ent) return dispatch(authOpened({ mode: 'signin', notice: 'Sign in to generate your reel.' }));
    if (!usable(clips).length && !uploading) return setError('Please add at least one video file or select from library.');
    if (uploading) return setError('Please wait for your files to finish uploading.');
    if (problems.length) return setError(problems[0]!);
    if (totalBytes > ent.upload_cap_bytes) return setError(ent.messages.upload);
    if (outputSeconds !== undefined && overReelCap(outputSeconds, ent.reel_cap_seconds)) return setError(ent.messages.reel_length);
    const cannotPay = !ent.unlimited && credits !== undefined && user.credits < credits && (ent.subscribed || user.daily_free_used);
    if (cannotPay) return setError(ent.messages.insufficient);
    if (!request) return;
    setPhase({ kind: 'submitting' });
    try {
      // A previewed plan cut from the song also names its bar line as music_start_sec (the server checks it).
      const sent = plan ? { ...request, plan, ...(plan.music_start > 0 ? { music_start_sec: plan.music_start } : {}) } : request;
      const { job_id } = await createJob({ request: sent, idempotencyKey: crypto.randomUUID() }).unwrap();
      setPhase({ kind: 'job', id: job_id });
    } catch (e) {
      setPhase({ kind: 'idle' });
      setError(errorDetail(e, 'Job creation failed'));
    }
  };

  const reset = (clearFiles: boolean) => {
    localStorage.removeItem(JOB_KEY);
    setPhase({ kind: 'idle' });
    setError('');
    if (clearFiles) {
      for (const i of uploads) drop(i);
      if (musicUpload) drop(musicUpload);
      setUploads([]);
      setMusicUpload(undefined);
      setLibraryVideos([]);
      setLibraryMusic(undefined);
      setPlan(null);
    }
  };

  return {
    clips,
    music,
    removeClip,
    moveClip,
    removeMusic,
    uploading,
    libraryVideos,
    libraryMusic,
    hasMusic,
    chooseLibraryVideos: (list: ChosenVideo[]) => {
      setLibraryVideos(list);
      setPlan(null);
      if (list.length) {
        uploads.forEach(drop);
        setUploads([]);
      }
      setError('');
    },
    chooseLibraryMusic: (m: ChosenMusic | undefined) => {
      setLibraryMusic(m);
      setPlan(null);
      if (m && musicUpload) {
        drop(musicUpload);
        setMusicUpload(undefined);
      }
      setError('');
    },
    addFiles,
    settings,
    update,
    updateTitle,
    setSettingsProblem: (field: string, problem: string) =>
      setSettingsProblems((p) => (p[field] === problem ? p : { ...p, [field]: problem })),
    settingsProblems,
    request,
    plan,
    setPlan,
    credits,
    shortOfCredits,
    phase,
    error,
    refusedNote,
    busy: phase.kind !== 'idle',
    generate,
    reset,
  };
}
export type JobForm = ReturnType<typeof useJobForm>;
