import { useRef, useState } from 'react';
import { clock, humanSize, capitalise, type VideoLibraryFile } from './library.api';

/**
 * A library clip: its thumbnail, and on hover (or keyboard focus) the clip itself playing muted
 * from 1 s. Activating it calls `onOpen` (the player, or selection in the Home browser).
 */
export function ClipCard({
  file,
  onOpen,
  selected,
  label,
}: {
  file: VideoLibraryFile;
  onOpen: (f: VideoLibraryFile) => void;
  selected?: boolean;
  label?: string;
}) {
  const [hover, setHover] = useState(false);
  const video = useRef<HTMLVideoElement>(null);
  return (
    <li className={`clip-card${selected ? ' selected' : ''}`} data-testid="clip-card">
      <button
        className="clip-media"
        onClick={() => onOpen(file)}
        onMouseEnter={() => setHover(true)}
        onMouseLeave={() => setHover(false)}
        onFocus={() => setHover(true)}
        onBlur={() => setHover(false)}
        aria-label={label ?? `Play ${file.filename}`}
        aria-pressed={selected === undefined ? undefined : selected}
      >
        {/* The thumbnail stays put: a click that starts on it must end on it (swapping it for the
            video between mousedown and mouseup would lose the click). The preview plays over it. */}
        <img src={file.thumbnail_url} alt="" loading="lazy" />
        {hover && (
          <video
            ref={video}
            src={file.url}
            muted
            playsInline
            autoPlay
            preload="metadata"
            aria-hidden="true"
            onLoadedMetadata={(e) => {
              e.currentTarget.currentTime = Math.min(1, e.currentTarget.duration / 2 || 0);
            }}
          />
        )}
      </button>
      <div className="clip-info">
        <span className="name" title={file.filename}>
          {file.filename}
        </span>
        <span>
          <span className="tag">{capitalise(file.category)}</span>{' '}
          <span className="muted">
            {humanSize(file.size)} · {clock(file.duration)}
          </span>
        </span>
      </div>
    </li>
  );
}
