import { useState } from 'react';
import { Link } from '../../components/navigation';
import type { Pacing } from '../../api/types';
import { PlayerModal } from './PlayerModal';
import { useCostEstimateQuery, useDemosQuery, type DemoVideo } from './public.api';
import { GUIDE_STEPS as steps } from './guide-steps';
import { usePageMeta } from './usePageMeta';
import { formatDuration } from './VideoCard';

const PACINGS: Array<{ id: Pacing; label: string }> = [
  { id: 'relaxed', label: 'Relaxed' },
  { id: 'standard', label: 'Standard' },
  { id: 'high-energy', label: 'High-energy' },
];
const MB = 1024 * 1024;
/** A typical small upload, under any free size allowance, for the price table. */
const SMALL = 50 * MB;

const tips = [
  'Beat mapping cuts on the music: pick a track with a clear beat for the tightest edit.',
  'Intelligence skips black, frozen and blurry moments and picks the best part of each clip.',
  'High-energy pacing suits sports and action; relaxed suits travel and weddings.',
  'Clips are used in the order you add them, so put your strongest shot first.',
  'Letterbox keeps the whole picture; turn it off to fill the frame by cropping.',
];

/** One price from billing's own estimate. */
function Price({ pacing, music, bytes }: { pacing: Pacing; music: boolean; bytes: number }) {
  const q = useCostEstimateQuery({ pacing_preset: pacing, has_music: music, total_source_bytes: bytes });
  return <>{q.data ? q.data.credits : q.isError ? 'n/a' : '…'}</>;
}

function Estimator() {
  const [mb, setMb] = useState('500');
  const [music, setMusic] = useState(true);
  const [pacing, setPacing] = useState<Pacing>('standard');
  const size = Number(mb);
  const valid = mb.trim() !== '' && Number.isFinite(size) && size >= 0 && size <= 1_000_000;
  const q = useCostEstimateQuery({ pacing_preset: pacing, has_music: music, total_source_bytes: Math.round(size * MB) }, { skip: !valid });
  return (
    <form className="form estimator" onSubmit={(e) => e.preventDefault()} aria-label="Cost estimator">
      <label>
        Total size of your files (MB)
        <input type="number" inputMode="decimal" min={0} value={mb} onChange={(e) => setMb(e.target.value)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={music} onChange={(e) => setMusic(e.target.checked)} /> With music
      </label>
      <label>
        Pacing
        <select value={pacing} onChange={(e) => setPacing(e.target.value as Pacing)}>
          {PACINGS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      <p className="estimate" aria-live="polite">
        {!valid
          ? 'Enter a size in MB.'
          : q.isError
            ? 'The estimate is unavailable right now.'
            : q.data
              ? `${q.data.credits} credits`
              : 'Calculating…'}
      </p>
    </form>
  );
}

/** /guide: the four steps, tips, three short showcase reels as tutorials, and the price as billing computes it. */
export function GuidePage() {
  usePageMeta('Guide', 'How to make a highlight reel with Reelsmith in four steps, pro tips, and what a reel costs, computed live.');
  const demos = useDemosQuery('');
  const [playing, setPlaying] = useState<DemoVideo | null>(null);
  const tutorials = (demos.data?.source === 'showcase' ? demos.data.videos : [])
    .slice()
    .sort((a, b) => a.duration - b.duration)
    .slice(0, 3);
  const perGb = useCostEstimateQuery({ pacing_preset: 'relaxed', has_music: false, total_source_bytes: 2048 * MB });
  const perGbBase = useCostEstimateQuery({ pacing_preset: 'relaxed', has_music: false, total_source_bytes: 1024 * MB });

  return (
    <section className="page public">
      <h1>Guide</h1>
      <p className="lead">From clips to a finished reel in four steps.</p>
      <ol className="guide-steps">
        {steps.map((s, i) => (
          <li key={s.title} className="card">
            <span className="step-no">{i + 1}</span>
            <div>
              <h2>{s.title}</h2>
              <p>{s.text}</p>
            </div>
          </li>
        ))}
      </ol>

      <h2>Pro tips</h2>
      <ul className="tips">
        {tips.map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>

      <h2>Tutorials</h2>
      {demos.isLoading ? (
        <p className="muted" role="status">
          Loading tutorials…
        </p>
      ) : demos.isError ? (
        <p className="error">Failed to load the tutorials.</p>
      ) : !tutorials.length ? (
        <p className="muted">No tutorials yet: they appear once the first reels are featured.</p>
      ) : (
        <ul className="tutorials">
          {tutorials.map((t) => (
            <li key={t.id}>
              <button className="tutorial" onClick={() => setPlaying(t)}>
                {t.thumbnail && <img src={t.thumbnail} alt="" loading="lazy" />}
                <span>
                  <strong>{t.title}</strong>
                  <span className="muted">
                    {t.category} · {formatDuration(t.duration)}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}

      <h2>What a reel costs</h2>
      <p>
        Billing prices every reel with one formula, the same for this page, for the estimate on Create and for the charge. The price depends
        on the pacing, on whether the reel has music, on the total size of your source files beyond a free allowance, and on the reel's
        length beyond the included minutes; there is a minimum price. These figures come live from billing:
      </p>
      {/* Scrolls sideways on a narrow phone: focusable, so the keyboard can scroll it too. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Credits for a reel from 50 MB of clips">
        <table className="price-table">
          <caption>Credits for a reel from 50 MB of clips</caption>
          <thead>
            <tr>
              <th scope="col">Pacing</th>
              <th scope="col">Without music</th>
              <th scope="col">With music</th>
            </tr>
          </thead>
          <tbody>
            {PACINGS.map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.label}</th>
                <td>
                  <Price pacing={p.id} music={false} bytes={SMALL} />
                </td>
                <td>
                  <Price pacing={p.id} music bytes={SMALL} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {perGb.data && perGbBase.data && (
        <p>Each further GB of source files adds about {perGb.data.credits - perGbBase.data.credits} credits.</p>
      )}
      <h3>Estimate your reel</h3>
      <Estimator />
      <p className="center">
        <Link to="/pricing">See plans and credit packs</Link>
      </p>
      {playing && <PlayerModal video={playing} onClose={() => setPlaying(null)} />}
    </section>
  );
}
