import type { EditPlan, JobRequest } from '../../api/types';

/**
 * Home's 'Preview edit' step (issue 20), between Configure and Generate: the plan the engine would
 * render for `request`, shown as a timeline the user can lock, re-roll and nudge, and played in
 * the browser without rendering. Generate sends `plan` with the request, so the render follows it.
 */
export interface PlanStudioProps {
  /** The job request as Generate would send it (every file uploaded); null while it is not ready. */
  request: JobRequest | null;
  /** The plan shown (possibly edited), or null when there is none (or the request changed since). */
  plan: EditPlan | null;
  onPlanChange: (plan: EditPlan | null) => void;
  /** Playable sources of the clips, by media_files index (object URLs of local files, or library links). */
  clipSources: string[];
  /** Playable source of the music, if any. */
  musicSource?: string;
}

/** Placeholder until the studio lands: nothing to show. */
export function PlanStudio(_props: PlanStudioProps) {
  return null;
}
