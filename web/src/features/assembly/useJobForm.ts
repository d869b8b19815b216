import { useEffect, useRef, useState } from 'react';
import type { EditPlan, User } from '../../api/types';
import { errorDetail } from '../../base/api';
import { authOpened } from '../../base/session';
import { useAppDispatch, useAppSelector } from '../../base/store';
import type { ChosenMusic, ChosenVideo } from '../library';
import { useCreateJobMutation } from './assembly.api';
import { accountLeft } from './settingsMemory';
import { overReelCap } from './steps';
import { usable } from './tray';
import { useJobPhase } from './useJobPhase';
import { useJobRequest } from './useJobRequest';
import { useMediaTray } from './useMediaTray';

export type { Phase } from './useJobPhase';
export type { JobSettings } from './useJobRequest';

/**
 * Home's state and actions: the media tray (useMediaTray), the settings, the estimate and the
 * request (useJobRequest), the plan from 'Preview edit', and Generate (creates the job once per
 * click, with an Idempotency-Key; useJobPhase follows it). The limits and their messages come from
 * the signed-in user's entitlements (billing decides them); the checks here only spare a round
 * trip, the server makes every one of them again.
 */
export function useJobForm(user: User | null) {
  const dispatch = useAppDispatch();
  const token = useAppSelector((s) => s.session.token);
  const [plan, setPlan] = useState<EditPlan | null>(null);
  const [error, setError] = useState('');
  // Any change to what would be rendered makes a previewed plan stale.
  const edited = () => setPlan(null);
  const tray = useMediaTray(user, token, edited);
  const job = useJobRequest(user, tray, edited);
  const { phase, setPhase, forget } = useJobPhase(user, token);
  const [createJob] = useCreateJobMutation();
  const { clips, uploading } = tray;
  const { request, problems, totalBytes, outputSeconds, credits } = job;
  // The last account's preview and messages go with it (the tray and settings do the same).
  const shownFor = useRef<string | null>(null);
  const owner = user?.id ?? null;
  useEffect(() => {
    const before = shownFor.current;
    shownFor.current = owner;
    if (!accountLeft(before, owner)) return;
    setPlan(null);
    setError('');
  }, [owner]);

  const generate = async () => {
    setError('');
    const ent = user?.entitlements;
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
    forget();
    setError('');
    if (clearFiles) {
      tray.clear();
      setPlan(null);
    }
  };

  return {
    clips,
    music: tray.music,
    removeClip: tray.removeClip,
    moveClip: tray.moveClip,
    removeMusic: tray.removeMusic,
    uploading,
    libraryVideos: tray.libraryVideos,
    libraryMusic: tray.libraryMusic,
    hasMusic: tray.hasMusic,
    chooseLibraryVideos: (list: ChosenVideo[]) => {
      tray.chooseLibraryVideos(list);
      setError('');
    },
    chooseLibraryMusic: (m: ChosenMusic | undefined) => {
      tray.chooseLibraryMusic(m);
      setError('');
    },
    addFiles: (picked: File[]) => {
      setError('');
      tray.addFiles(picked);
    },
    settings: job.settings,
    update: job.update,
    updateTitle: job.updateTitle,
    setSettingsProblem: job.setSettingsProblem,
    settingsProblems: job.settingsProblems,
    request,
    plan,
    setPlan,
    credits,
    shortOfCredits: job.shortOfCredits,
    phase,
    error,
    refusedNote: tray.refusedNote,
    busy: phase.kind !== 'idle',
    generate,
    reset,
  };
}
export type JobForm = ReturnType<typeof useJobForm>;
