import { useState } from 'react';
import { Link } from '../../components/navigation';
import type { Reel } from '../../api/types';
import { authOpened } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import { Modal } from '../../components/Modal';
import { Page } from '../../components/Page';
import { ReelPlayer } from '../../components/ReelPlayer';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useCurrentUser } from '../auth';
import '../public/public.css';
import { ShareToggle } from '../public';
import '../library/library.css';
import { useDeleteReelMutation, useReelAccessMutation, useReelsQuery } from './reels.api';
import { formatDate } from '../../base/format';

/** A reel finished in another tab or while the page is open appears within this long, without a reload. */
const REFRESH_MS = 15_000;
const PACING: Record<string, string> = { relaxed: 'Relaxed', standard: 'Standard', 'high-energy': 'High Energy' };
const day = formatDate;

function ReelCard({ reel, onPlay }: { reel: Reel; onPlay: (r: Reel) => void }) {
  const [remove, removing] = useDeleteReelMutation();
  const del = async () => {
    if (!window.confirm('Are you sure you want to delete this reel? This action cannot be undone.')) return;
    try {
      await remove(reel.id).unwrap();
    } catch {
      window.alert('Failed to delete reel. Please try again.');
    }
  };
  return (
    <li className="reel-card" data-testid="reel-card">
      <div className="reel-thumb">
        {reel.thumbnail ? <img src={reel.thumbnail.url} alt="" loading="lazy" /> : null}
        <span className="date-badge">{day(reel.created_at)}</span>
        <span className="flags">
          {reel.music_used && <span className="badge">Music</span>}
          {reel.enable_beat_mapping && <span className="badge">Beat</span>}
          {reel.enable_intelligence && <span className="badge">AI</span>}
        </span>
      </div>
      <div className="reel-body">
        <h2>{reel.title}</h2>
        {reel.description && <p className="muted">{reel.description}</p>}
        <p className="muted" data-testid="reel-expiry">
          {reel.expires_at ? `Kept until ${day(reel.expires_at)}` : 'Kept without limit'}
        </p>
        <ShareToggle reelId={reel.id} shared={reel.share_to_showcase} />
        <div className="reel-actions">
          <a className="btn primary" href={reel.download_url} download>
            Download
          </a>
          <button className="btn" onClick={() => onPlay(reel)} aria-label={`Play ${reel.title}`}>
            Play
          </button>
          <button className="btn" onClick={del} disabled={removing.isLoading} aria-label={`Delete ${reel.title}`}>
            {removing.isLoading ? 'Deleting…' : 'Delete'}
          </button>
        </div>
      </div>
      <div className="reel-foot muted">
        <span>{PACING[reel.pacing_preset] ?? reel.pacing_preset} pacing</span>
        <span>{day(reel.created_at)}</span>
      </div>
    </li>
  );
}

/** /reels: the signed-in user's finished reels (spec section 2, "My Reels"). */
export function ReelsPage() {
  const { token, loading } = useCurrentUser();
  const dispatch = useAppDispatch();
  const list = useReelsQuery({ limit: 100, offset: 0 }, { skip: !token, pollingInterval: REFRESH_MS });
  const [playing, setPlaying] = useState<Reel | null>(null);
  const [access] = useReelAccessMutation();
  const play = (r: Reel) => {
    setPlaying(r);
    void access(r.id); // sent without waiting
  };

  if (!token)
    return (
      <Page title="My Reels">
        <div className="empty-state">
          <h2>Sign In to Access Your Reels</h2>
          <button className="btn primary" onClick={() => dispatch(authOpened({ mode: 'signin' }))}>
            Sign In
          </button>
        </div>
      </Page>
    );
  const data = list.data;
  return (
    <Page title="My Reels">
      <div className="library-toolbar">
        <span className="muted">{data ? `${data.stats.total_videos} reel${data.stats.total_videos === 1 ? '' : 's'}` : ''}</span>
        <button className="btn" onClick={() => window.location.reload()}>
          Refresh
        </button>
      </div>
      {loading || list.isLoading ? (
        <div className="spinner" role="status" aria-label="Loading your reels" />
      ) : list.isError ? (
        <ErrorAlert>Library system is initializing. Your videos will appear here once the cloud storage is ready.</ErrorAlert>
      ) : data?.status === 'fallback' ? (
        <p className="notice">{data.message}</p>
      ) : !data || data.videos.length === 0 ? (
        <div className="empty-state">
          <h2>Your reels collection is empty</h2>
          <div className="row">
            <Link className="btn primary" to="/">
              Create a Reel
            </Link>
            <Link className="btn" to="/demos">
              View a Sample
            </Link>
          </div>
        </div>
      ) : (
        <>
          <ul className="reel-grid" aria-label="Your reels">
            {data.videos.map((r) => (
              <ReelCard key={r.id} reel={r} onPlay={play} />
            ))}
          </ul>
          <div className="empty-state">
            <Link className="btn primary" to="/">
              Create More Reels
            </Link>
          </div>
        </>
      )}
      {playing && (
        <Modal title={playing.title} onClose={() => setPlaying(null)}>
          <div className="player library-browser">
            <ReelPlayer
              src={playing.download_url}
              controls
              autoPlay
              playsInline
              poster={playing.thumbnail?.url}
              data-testid="my-reel-player"
            />
          </div>
        </Modal>
      )}
    </Page>
  );
}
