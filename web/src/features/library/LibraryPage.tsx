import { useCallback, useEffect, useRef, useState } from 'react';
import { Modal } from '../../components/Modal';
import { Page } from '../../components/Page';
import { ErrorAlert } from '../../components/ErrorAlert';
import { errorDetail } from '../../base/api';
import type { AppDispatch } from '../../base/store';
import { useCurrentUser } from '../auth';
import { AdminLibrarySection } from './AdminLibrarySection';
import { ClipCard } from './ClipCard';
import { LibraryToolbar } from './LibraryToolbar';
import {
  LIBRARY_MAX,
  LIBRARY_PAGE,
  capitalise,
  prefetchVideoLibrary,
  useRemoveFromLibraryMutation,
  useVideoLibraryQuery,
  type VideoLibraryFile,
} from './library.api';
import './library.css';

/** One page of 50 clips of the current search (each page is its own cached query). */
function Chunk({ q, category, index, onOpen }: { q: string; category: string; index: number; onOpen: (f: VideoLibraryFile) => void }) {
  const { data } = useVideoLibraryQuery({ q, category, limit: LIBRARY_PAGE, offset: index * LIBRARY_PAGE });
  return (
    <>
      {data?.files.map((f) => (
        <ClipCard key={f.key} file={f} onOpen={onOpen} />
      ))}
    </>
  );
}

/** Search text settles for 300 ms before it is sent. */
function useDebounced<T>(value: T, ms = 300): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The clips the page asks for when it opens: the first page of all clips, and the total. */
const firstPage = (q: string, category: string) => ({ q, category, limit: LIBRARY_PAGE, offset: 0 });
const totalOnly = { limit: 1 };

/** Starts the page's first requests before it renders (the router calls it when the page opens the app). */
export function prefetchLibraryPage(dispatch: AppDispatch) {
  dispatch(prefetchVideoLibrary(firstPage('', '')));
  dispatch(prefetchVideoLibrary(totalOnly));
}

/** /library: the stock video library (spec section 2, "Video Library"). */
export function LibraryPage() {
  const [text, setText] = useState('');
  const [category, setCategory] = useState('');
  const q = useDebounced(text).trim();
  const [pages, setPages] = useState(1);
  const [playing, setPlaying] = useState<VideoLibraryFile | null>(null);
  const { user } = useCurrentUser();
  const [removeItem, removing] = useRemoveFromLibraryMutation();
  const [removeError, setRemoveError] = useState('');
  const first = useVideoLibraryQuery(firstPage(q, category));
  const all = useVideoLibraryQuery(totalOnly);
  useEffect(() => setPages(1), [q, category]);

  const filtered = first.data?.total ?? 0;
  const shown = Math.min(pages * LIBRARY_PAGE, filtered, LIBRARY_MAX);
  // More only at the bottom, while fewer are shown than match and fewer than 1000 (spec section 5).
  const sentinel = useRef<HTMLDivElement>(null);
  const more = useCallback(() => {
    if (!first.isFetching && shown < filtered && shown < LIBRARY_MAX) setPages((p) => p + 1);
  }, [first.isFetching, shown, filtered]);
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const obs = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && more(), { rootMargin: '200px' });
    obs.observe(el);
    return () => obs.disconnect();
  }, [more]);

  const refresh = () => {
    void first.refetch();
    void all.refetch();
    setPages(1);
  };
  const searching = Boolean(q || category);
  return (
    <Page title="Video Library">
      <p className="lead">Stock clips anyone can browse; sign in on Home to use them in a reel.</p>
      {user?.is_admin && <AdminLibrarySection onChanged={() => refresh()} />}
      <LibraryToolbar
        label="Search videos"
        text={text}
        onText={setText}
        category={category}
        onCategory={setCategory}
        categories={all.data?.categories ?? first.data?.categories ?? []}
      >
        <button className="btn" onClick={refresh}>
          Refresh
        </button>
      </LibraryToolbar>
      {first.isError ? (
        <ErrorAlert>Failed to load video library. The system may still be initializing.</ErrorAlert>
      ) : first.isLoading ? (
        <div className="spinner" role="status" aria-label="Loading videos" />
      ) : (
        <>
          <p className="muted" data-testid="library-counts">
            Showing {shown} of {filtered} videos · {all.data?.total ?? filtered} total clips available
          </p>
          {filtered === 0 ? (
            <p className="empty-state">{searching ? 'No videos match your search' : 'No videos found'}</p>
          ) : (
            <ul className="clip-grid" aria-label="Videos">
              {Array.from({ length: Math.ceil(shown / LIBRARY_PAGE) }, (_, i) => (
                <Chunk key={`${q}|${category}|${i}`} q={q} category={category} index={i} onOpen={setPlaying} />
              ))}
            </ul>
          )}
          <div ref={sentinel} aria-hidden="true" style={{ height: 1 }} />
        </>
      )}
      {playing && (
        <Modal title={playing.filename} onClose={() => setPlaying(null)}>
          <div className="player library-browser">
            <video src={playing.url} controls autoPlay playsInline poster={playing.thumbnail_url} />
            <p className="muted">{capitalise(playing.category)}</p>
            {user?.is_admin && (
              <button
                className="btn"
                disabled={removing.isLoading}
                onClick={async () => {
                  if (!window.confirm('Are you sure you want to delete this clip? This action cannot be undone.')) return;
                  try {
                    await removeItem(playing.key).unwrap();
                    setPlaying(null);
                    refresh();
                  } catch (e) {
                    setRemoveError(errorDetail(e, 'Failed to delete video'));
                  }
                }}
              >
                Remove from library
              </button>
            )}
            {removeError && <p className="error">{removeError}</p>}
          </div>
        </Modal>
      )}
    </Page>
  );
}
