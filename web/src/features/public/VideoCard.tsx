import { useEffect, useState } from 'react';
import type { DemoVideo } from './public.api';
import { formatPlural } from '../../base/format';

/** The spec's hover preview: three frames, one every 0.8 s. */
export const PREVIEW_FRAME_MS = 800;

export const formatDuration = (s: number) => {
  const t = Math.round(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
};

export const formatViews = (n: number) => formatPlural(n, 'view');

/** A video's card: thumbnail (hover or focus cycles the preview frames), title, category, length and views; opens the player. */
export function VideoCard({ video, onOpen, rank }: { video: DemoVideo; onOpen: (v: DemoVideo) => void; rank?: number }) {
  const [active, setActive] = useState(false);
  const [frame, setFrame] = useState(0);
  const frames = video.preview_frames.slice(0, 3);
  useEffect(() => {
    if (!active || frames.length < 2) return;
    const t = setInterval(() => setFrame((f) => (f + 1) % frames.length), PREVIEW_FRAME_MS);
    return () => clearInterval(t);
  }, [active, frames.length]);
  const src = active && frames.length ? frames[frame % frames.length] : video.thumbnail;

  return (
    <article className="video-card">
      <button
        className="video-thumb"
        onMouseEnter={() => setActive(true)}
        onMouseLeave={() => (setActive(false), setFrame(0))}
        onFocus={() => setActive(true)}
        onBlur={() => (setActive(false), setFrame(0))}
        onClick={() => onOpen(video)}
      >
        {src ? <img src={src} alt="" loading="lazy" /> : <span className="video-thumb-empty" aria-hidden="true" />}
        <span className="sr-only">Play {video.title}</span>
        {rank !== undefined && <span className="rank">#{rank}</span>}
        <span className="duration">{formatDuration(video.duration)}</span>
      </button>
      <div className="video-meta">
        <h3>{video.title}</h3>
        <p className="muted">
          <span className="chip">{video.category}</span> {formatViews(video.views)}
        </p>
      </div>
    </article>
  );
}
