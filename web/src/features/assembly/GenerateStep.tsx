import { lazy, Suspense } from 'react';
import type { User } from '../../api/types';
import type { JobForm } from './useJobForm';
import { ErrorAlert } from '../../components/ErrorAlert';
import { estimateInMoney, useCatalogueQuery } from '../payments';

/** The job's card loads once there is a job. */
const JobCard = lazy(() => import('./JobCard').then((m) => ({ default: m.JobCard })));

/** Shown only when the reel costs more than the user can pay: its plan and pack cards load then. */
const PayToContinue = lazy(() => import('../payments/PayToContinue').then((m) => ({ default: m.PayToContinue })));

/** Step 4: the estimate, Generate (the previewed plan, if any), then the job progress card. */
export function GenerateStep({ form, user }: { form: JobForm; user: User | null }) {
  const { credits, phase, error, shortOfCredits } = form;
  const ent = user?.entitlements;
  const catalogue = useCatalogueQuery();
  const inMoney = credits !== undefined ? estimateInMoney(credits, catalogue.data?.packs ?? []) : '';
  // Known before any upload starts: the reel costs more than this user can pay.
  const cannotPay = Boolean(
    user && ent && !ent.unlimited && credits !== undefined && user.credits < credits && (ent.subscribed || user.daily_free_used),
  );
  return (
    <section className="step" aria-labelledby="step4">
      <h2 id="step4">
        <span className="step-no">4</span> Generate
      </h2>
      <p data-testid="estimate">
        {credits === undefined ? 'Estimating cost…' : `Estimated cost: ${credits} credits`}
        {inMoney && ` (worth ${inMoney})`}
        {user &&
          ent &&
          !ent.subscribed &&
          !ent.unlimited &&
          (user.daily_free_used
            ? ' · Your free video for today is used (resets at midnight UTC).'
            : ' · Covered by your free video of the day (one per UTC day).')}
        {ent?.unlimited && ' · Unlimited account: not charged.'}
      </p>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {phase.kind === 'idle' && cannotPay && user && credits !== undefined && (
        <Suspense fallback={null}>
          <PayToContinue user={user} credits={credits} />
        </Suspense>
      )}
      {phase.kind === 'idle' && form.uploading && <p className="notice">Uploading your files… Generate is ready when they are.</p>}
      {phase.kind === 'idle' && (
        <button
          className="btn primary big"
          onClick={form.generate}
          disabled={shortOfCredits || cannotPay}
          title={shortOfCredits ? 'Not enough credits for this reel' : undefined}
        >
          {form.plan ? 'Generate This Edit' : 'Generate Reel'}
        </button>
      )}
      {phase.kind === 'submitting' && <p className="notice">Creating video job…</p>}
      {phase.kind === 'job' && (
        <Suspense fallback={<div className="spinner" role="status" aria-label="Loading the job" />}>
          <JobCard jobId={phase.id} onAnother={() => form.reset(false)} onStartOver={() => form.reset(true)} />
        </Suspense>
      )}
    </section>
  );
}
