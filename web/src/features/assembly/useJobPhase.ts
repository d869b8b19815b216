import { useEffect, useState } from 'react';
import type { User } from '../../api/types';
import { useActiveJobsQuery } from './assembly.api';

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

/**
 * Where Home is with its job: nothing submitted, submitting, or following a job. The job is
 * remembered in this browser for its owner and found again after a reload (or in another tab).
 */
export function useJobPhase(user: User | null, token: string | null | undefined) {
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

  // A running job is found again after a reload (or in another tab).
  const active = useActiveJobsQuery(undefined, { skip: !user || phase.kind !== 'idle' });
  useEffect(() => {
    const job = active.data?.jobs[0];
    if (job && phase.kind === 'idle') setPhase({ kind: 'job', id: job.job_id });
  }, [active.data, phase.kind]);
  useEffect(() => {
    if (phase.kind === 'job' && user) localStorage.setItem(JOB_KEY, JSON.stringify({ id: phase.id, owner: user.id }));
  }, [phase, user]);

  /** Back to no job, forgetting the remembered one (Create Another, Start Over). */
  const forget = () => {
    localStorage.removeItem(JOB_KEY);
    setPhase({ kind: 'idle' });
  };
  return { phase, setPhase, forget };
}
