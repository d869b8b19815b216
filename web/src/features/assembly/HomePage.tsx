import { Page } from '../../pages/Page';
import { useCurrentUser } from '../auth/useCurrentUser';
import { PlanStudio } from '../studio/PlanStudio';
import { GenerateStep } from './GenerateStep';
import { SettingsStep } from './SettingsStep';
import { UploadStep } from './UploadStep';
import { useJobForm } from './useJobForm';

/** Home: the studio (spec section 2, issue 20): media, settings, the edit plan before credits are spent, and the render. */
export function HomePage() {
  const { user } = useCurrentUser();
  const form = useJobForm(user);
  return (
    <Page title="Create a Reel">
      <p className="lead">Turn your clips and a music track into an edited highlight reel, cut on the beat.</p>
      <UploadStep form={form} user={user} />
      <SettingsStep form={form} hasMusic={form.hasMusic} />
      <section className="step" aria-labelledby="step3">
        <h2 id="step3">
          <span className="step-no">3</span> Preview Edit <span className="muted small">(optional, free)</span>
        </h2>
        <PlanStudio
          request={form.phase.kind === 'idle' ? form.request : null}
          plan={form.plan}
          onPlanChange={form.setPlan}
          clipSources={form.clips.filter((c) => c.state === 'ready').map((c) => c.playableUrl ?? '')}
          clipNames={form.clips.filter((c) => c.state === 'ready').map((c) => c.name)}
          musicSource={form.music?.playableUrl}
        />
      </section>
      <GenerateStep form={form} user={user} />
    </Page>
  );
}
