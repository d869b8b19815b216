import { useState } from 'react';
import { useFeatureReelMutation, useSharedReelsQuery, useUnfeatureReelMutation, type SharedReel } from './public.api';
import { formatDate, formatPlural } from '../../base/format';
import { ErrorAlert } from '../../components/ErrorAlert';

function Row({ reel }: { reel: SharedReel }) {
  const [category, setCategory] = useState(reel.category || '');
  const [feature, f] = useFeatureReelMutation();
  const [unfeature, u] = useUnfeatureReelMutation();
  const error = f.error ?? u.error;
  return (
    <li className="card">
      <strong>{reel.title}</strong>{' '}
      <span className="muted">
        · {reel.pacing_preset} · {Math.round(reel.duration_sec)} s · {formatDate(reel.created_at)}
        {reel.featured && ` · featured in ${reel.category}, ${formatPlural(reel.views, 'view')}`}
      </span>
      <form
        className="row toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void feature({ id: reel.id, category });
        }}
      >
        <label>
          <span className="muted">Category </span>
          <input value={category} maxLength={40} required onChange={(e) => setCategory(e.target.value)} />
        </label>
        <button className="btn primary" type="submit" disabled={f.isLoading || !category.trim()}>
          {reel.featured ? 'Change category' : 'Feature'}
        </button>
        {reel.featured && (
          <button className="btn" type="button" disabled={u.isLoading} onClick={() => void unfeature(reel.id)}>
            Remove from showcase
          </button>
        )}
      </form>
      {error && <ErrorAlert error={error} fallback="The showcase could not be changed." />}
    </li>
  );
}

/** The admin dashboard's Showcase section: reels their owners shared; feature them with a category, or take them out. */
export function ShowcaseAdminSection() {
  const q = useSharedReelsQuery({ limit: 50, offset: 0 });
  return (
    <section className="step" aria-labelledby="showcase-admin-heading">
      <h2 id="showcase-admin-heading">Showcase</h2>
      {q.isLoading ? (
        <p className="muted" role="status">
          Loading shared reels…
        </p>
      ) : q.isError ? (
        <ErrorAlert error={q.error} fallback="Failed to load shared reels." />
      ) : !q.data?.reels.length ? (
        <p className="muted">No reel has been shared to the showcase yet.</p>
      ) : (
        <ul className="inbox">
          {q.data.reels.map((r) => (
            <Row key={r.id} reel={r} />
          ))}
        </ul>
      )}
    </section>
  );
}
