import { useState } from 'react';
import { Link } from '../../components/navigation';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PlayerModal } from './PlayerModal';
import {
  useFeaturedQuery,
  useShowcaseCreatorsQuery,
  useShowcaseRatingsQuery,
  useShowcaseStatsQuery,
  type DemoVideo,
  type ShowcaseCreator,
} from './public.api';
import { StarRating, ratingText } from './StarRating';
import { useCurrentUser } from '../auth';
import { usePageMeta } from './usePageMeta';
import { formatViews, VideoCard } from './VideoCard';
import { formatCount, formatDecimal, formatPlural } from '../../base/format';

/** The spec's Hall of Fame fetch: 15 videos. */
export const FEATURED_LIMIT = 15;

/**
 * The people behind the showcase: real accounts that own featured reels and chose a public name
 * (Settings), with the reels they made and the real plays of their featured reels.
 */
function CreatorCards({ creators, loading, failed }: { creators: ShowcaseCreator[]; loading: boolean; failed: boolean }) {
  return (
    <section aria-labelledby="creators-heading" className="creators">
      <h2 id="creators-heading">Creators</h2>
      {loading ? (
        <p className="muted" role="status">
          Loading creators…
        </p>
      ) : failed ? (
        <ErrorAlert>Failed to load the creators.</ErrorAlert>
      ) : !creators.length ? (
        <p className="muted">No creators listed yet. Set a public name in Settings to appear here next to your featured reels.</p>
      ) : (
        <ul className="creator-cards">
          {creators.map((c, i) => (
            <li key={`${i}-${c.display_name}`} className="creator-card">
              <span className="rank">#{i + 1}</span>
              <h3>{c.display_name}</h3>
              <span>{formatPlural(c.reels, 'reel')} made</span>
              <span className="muted">
                {formatPlural(c.featured_reels, 'featured reel')} · {formatPlural(c.views, 'view')}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** /hall-of-fame: real figures, the three most-watched reels, the top reels and their creators. */
export function HallOfFamePage() {
  usePageMeta('Hall of Fame', 'The most-watched highlight reels made with Reelsmith, and how many reels its creators have made.');
  const featured = useFeaturedQuery(FEATURED_LIMIT);
  const stats = useShowcaseStatsQuery();
  const creators = useShowcaseCreatorsQuery();
  const [playing, setPlaying] = useState<DemoVideo | null>(null);
  const videos = featured.data?.videos ?? [];
  const { user } = useCurrentUser();
  // Ratings are for reels made here (the showcase), not for YouTube videos.
  const rateable = featured.data?.source === 'showcase' ? videos.map((v) => v.id).join(',') : '';
  const ratings = useShowcaseRatingsQuery(rateable, { skip: !rateable });
  const byId = new Map((ratings.data?.ratings ?? []).map((r) => [r.reel_id, r]));
  // The tile: every rating of the reels shown, averaged (weighted by how many each has).
  const all = [...byId.values()];
  const votes = all.reduce((n, r) => n + r.count, 0);
  const overall = votes ? { average: all.reduce((a, r) => a + r.average * r.count, 0) / votes, count: votes } : undefined;

  return (
    <section className="page public">
      <h1>Hall of Fame</h1>
      <p className="lead">The reels people watch most.</p>
      <div className="tiles">
        <div className="tile">
          <span className="tile-value">{stats.data ? formatCount(stats.data.total_reels) : '–'}</span>
          <span className="muted">reels created</span>
        </div>
        <div className="tile">
          <span className="tile-value">{stats.data ? formatCount(stats.data.active_creators) : '–'}</span>
          <span className="muted">creators active in the last 30 days</span>
        </div>
        {rateable && (
          <div className="tile" data-testid="rating-tile">
            <span className="tile-value">{overall ? `${formatDecimal(overall.average, 1)}/5` : '–'}</span>
            <span className="muted">{ratingText(overall)}</span>
          </div>
        )}
      </div>
      {stats.isError && <p className="error">Failed to load the figures.</p>}
      <div className="row toolbar">
        <button
          className="btn"
          onClick={() => (void featured.refetch(), void stats.refetch(), void creators.refetch())}
          disabled={featured.isFetching}
        >
          Refresh Content
        </button>
        <span className="muted" aria-live="polite">
          {featured.isFetching ? 'Loading…' : `${videos.length} featured ${videos.length === 1 ? 'video' : 'videos'} loaded`}
        </span>
      </div>
      {featured.data?.fallback_reason && <p className="notice">{featured.data.fallback_reason}</p>}
      {featured.isLoading ? (
        <div className="center" role="status">
          <div className="spinner" aria-hidden="true" />
          Loading featured reels…
        </div>
      ) : featured.isError ? (
        <ErrorAlert className="center">Failed to load YouTube content</ErrorAlert>
      ) : !videos.length ? (
        <p className="center muted">No featured content found</p>
      ) : (
        <>
          <h2>Featured</h2>
          <div className="featured-cards">
            {videos.slice(0, 3).map((v, i) => (
              <button key={v.id} className="featured-card" onClick={() => setPlaying(v)}>
                {v.thumbnail && <img src={v.thumbnail} alt="" loading="lazy" />}
                {/* Tile text like GuidePage's by design: each page shows its own figures (views here, duration there). */}
                <span className="featured-text">
                  <span className="rank">#{i + 1}</span>
                  <strong>{v.title}</strong>
                  <span className="muted">
                    {v.category} · {formatViews(v.views)}
                  </span>
                </span>
              </button>
            ))}
          </div>
          <h2>Top reels</h2>
          <div className="video-grid">
            {videos.map((v, i) => (
              <div key={v.id} className="rated-card">
                <VideoCard video={v} rank={i + 1} onOpen={setPlaying} />
                {rateable && <StarRating reelId={v.id} title={v.title} rating={byId.get(v.id)} user={user} />}
              </div>
            ))}
          </div>
        </>
      )}
      <CreatorCards creators={creators.data?.creators ?? []} loading={creators.isLoading} failed={creators.isError} />
      <p className="center">
        <Link to="/" className="btn primary">
          Start Creating
        </Link>
      </p>
      {playing && <PlayerModal video={playing} onClose={() => setPlaying(null)} />}
    </section>
  );
}
