import { Page } from '../../pages/Page';
import { useCurrentUser } from '../auth/useCurrentUser';
import { GenerateStep } from './GenerateStep';
import { SettingsStep } from './SettingsStep';
import { UploadStep } from './UploadStep';
import { useJobForm } from './useJobForm';

/** Home: the assembly tool in three steps (spec section 2). */
export function HomePage() {
  const { user } = useCurrentUser();
  const form = useJobForm(user);
  return (
    <Page title="Create a Reel">
      <p className="lead">Turn your clips and a music track into an edited highlight reel, cut on the beat.</p>
      <UploadStep form={form} user={user} />
      <SettingsStep form={form} hasMusic={form.hasMusic} />
      <GenerateStep form={form} user={user} />
    </Page>
  );
}
