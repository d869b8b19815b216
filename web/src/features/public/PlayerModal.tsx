import { useRef } from 'react';
import { Modal } from '../../components/Modal';
import { ReelPlayer } from '../../components/ReelPlayer';
import { useCountPlayMutation, type DemoVideo } from './public.api';

const isEmbed = (v: DemoVideo) => /^https:\/\/www\.youtube-nocookie\.com\/embed\//.test(v.videoUrl);

/**
 * The player: a showcase reel's MP4 (its first play counts one view) or YouTube's
 * privacy-enhanced embedded player, autoplaying. Escape, the close button or the backdrop close it.
 */
export function PlayerModal({ video, onClose }: { video: DemoVideo; onClose: () => void }) {
  const [countPlay] = useCountPlayMutation();
  const counted = useRef(false);

  return (
    <Modal title={video.title} onClose={onClose} className="player">
      <div className="player-frame">
        {isEmbed(video) ? (
          <iframe
            src={`${video.videoUrl}?autoplay=1&rel=0`}
            title={video.title}
            allow="autoplay; encrypted-media; picture-in-picture; fullscreen"
            allowFullScreen
            referrerPolicy="strict-origin-when-cross-origin"
          />
        ) : (
          <ReelPlayer
            src={video.videoUrl}
            controls
            autoPlay
            playsInline
            poster={video.thumbnail || undefined}
            data-testid="demo-player"
            onPlay={() => {
              if (counted.current) return;
              counted.current = true;
              void countPlay(video.id);
            }}
          />
        )}
      </div>
      {video.description && <p className="muted">{video.description}</p>}
      <p className="muted">
        <span className="chip">{video.category}</span>
      </p>
    </Modal>
  );
}
