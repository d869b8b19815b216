import { useState } from 'react';
import { errorDetail } from '../../base/api';
import { PlayerModal } from './PlayerModal';
import type { AppDispatch } from '../../base/store';
import { prefetchDemos, useDemosQuery, type DemoVideo } from './public.api';
import { usePageMeta } from './usePageMeta';
import { VideoCard } from './VideoCard';

/** Starts the page's first request (every category's demos) before it renders (the router calls it when the page opens the app). */
export function prefetchDemosPage(dispatch: AppDispatch) {
  dispatch(prefetchDemos(''));
}

/** /demos: reels made with Reelsmith, by category, with hover previews and a player. */
export function DemosPage() {
  usePageMeta('Demo Gallery', 'Watch highlight reels made with Reelsmith, by category: beat-synced cuts, pacing presets and titles.');
  const [category, setCategory] = useState('');
  const [playing, setPlaying] = useState<DemoVideo | null>(null);
  const all = useDemosQuery('');
  const q = useDemosQuery(category);
  const categories = all.data?.categories ?? [];

  return (
    <section className="page public">
      <h1>Demo Gallery</h1>
      <p className="lead">Reels made by Reelsmith from real footage. Hover a card to preview it; click to play.</p>
      {categories.length > 0 && (
        <div className="chips" role="group" aria-label="Category">
          {['', ...categories].map((c) => (
            <button key={c || 'all'} className="chip-button" aria-pressed={category === c} onClick={() => setCategory(c)}>
              {c || 'All'}
            </button>
          ))}
        </div>
      )}
      {q.data?.fallback_reason && <p className="notice">{q.data.fallback_reason}</p>}
      {q.isLoading || q.isFetching ? (
        <div className="center" role="status">
          <div className="spinner" aria-hidden="true" />
          Loading videos…
        </div>
      ) : q.isError ? (
        <div className="center" role="alert">
          <p className="error">{errorDetail(q.error, 'Failed to load videos. Please try again.')}</p>
          <button className="btn" onClick={() => void q.refetch()}>
            Try again
          </button>
        </div>
      ) : !q.data?.videos.length ? (
        <p className="center muted">No videos found</p>
      ) : (
        <>
          {/* The cards' titles are h3: this keeps the outline in order for screen readers. */}
          <h2 className="sr-only">Reels</h2>
          <div className="video-grid">
            {q.data.videos.map((v) => (
              <VideoCard key={v.id} video={v} onOpen={setPlaying} />
            ))}
          </div>
        </>
      )}
      {playing && <PlayerModal video={playing} onClose={() => setPlaying(null)} />}
    </section>
  );
}
