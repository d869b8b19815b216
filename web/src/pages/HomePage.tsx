import { lazy, Suspense } from 'react';
import { Page } from '../components/Page';
import { GenerateStep, SettingsStep, UploadStep, useJobForm } from '../features/assembly';
import { useCurrentUser } from '../features/auth';
import { prefetchCatalogue } from '../features/payments';
import type { AppDispatch } from '../base/store';

/**
 * The plan editor loads once there is something to preview (its own chunk). Home is a page, not a
 * part of the assembly feature, because it gathers two features: the studio builds on assembly's
 * uploads and tempo corrections, so assembly must not import the studio back.
 */
const PlanStudio = lazy(() => import('../features/studio/PlanStudio').then((m) => ({ default: m.PlanStudio })));
const waitingForUploads = (
  <p className="muted">Add your clips (and music) and wait for the uploads: then preview the edit before spending credits.</p>
);

/** Starts the page's first request (the price list, for the estimate) before it renders (the router calls it when the page opens the app). */
export function prefetchHomePage(dispatch: AppDispatch) {
  dispatch(prefetchCatalogue());
}

/** Home: the studio (spec section 2, issue 20): media, settings, the edit plan before credits are spent, and the render. */
export function HomePage() {
  const { user } = useCurrentUser();
  const form = useJobForm(user);
  const request = form.phase.kind === 'idle' ? form.request : null;
  return (
    <Page title="Create a Reel">
      <p className="lead">Turn your clips and a music track into an edited highlight reel, cut on the beat.</p>
      <UploadStep form={form} user={user} />
      <SettingsStep form={form} hasMusic={form.hasMusic} />
      <section className="step" aria-labelledby="step3">
        <h2 id="step3">
          <span className="step-no">3</span> Preview Edit <span className="muted small">(optional, free)</span>
        </h2>
        {request ? (
          <Suspense fallback={waitingForUploads}>
            <PlanStudio
              request={request}
              plan={form.plan}
              onPlanChange={form.setPlan}
              clipSources={form.clips.filter((c) => c.state === 'ready').map((c) => c.playableUrl ?? '')}
              clipNames={form.clips.filter((c) => c.state === 'ready').map((c) => c.name)}
              musicSource={form.music?.playableUrl}
            />
          </Suspense>
        ) : (
          waitingForUploads
        )}
      </section>
      <GenerateStep form={form} user={user} />
    </Page>
  );
}
