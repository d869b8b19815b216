import { Page } from './Page';

const steps = ['Upload media', 'Configure settings', 'Generate'];

/** Home: the assembly tool in three steps. */
export function HomePage() {
  return (
    <Page title="Create a Reel">
      <p className="lead">Turn your clips and a music track into an edited highlight reel, cut on the beat.</p>
      <ol className="steps">
        {steps.map((s, i) => (
          <li key={s}>
            <span className="step-no">{i + 1}</span> {s}
          </li>
        ))}
      </ol>
    </Page>
  );
}
