import { useRef, useState, type VideoHTMLAttributes } from 'react';

/** Where the poster frame is taken when the reel has no thumbnail: after a 2 s fade-in, as the engine's thumbnail is. */
export const posterTime = (durationSec: number) => Math.min(durationSec * 0.5, Math.max(durationSec * 0.25, 2.5));

type Props = Omit<VideoHTMLAttributes<HTMLVideoElement>, 'style'> & {
  /** The tallest the player may be, in vh (its width follows the reel's shape). */
  maxHeightVh?: number;
};

/**
 * A finished reel's player, sized to the reel's own shape (read from the file: a 9:16 reel plays
 * in a tall frame, not in a wide black box), with a poster frame before it plays: the reel's
 * thumbnail when there is one, else the reel itself shown at a moment after the fade-in (never
 * the black first frame); the first play starts from the beginning.
 */
export function ReelPlayer({ maxHeightVh = 70, poster, autoPlay, onLoadedMetadata, onPlay, onSeeking, onSeeked, ...rest }: Props) {
  const [shape, setShape] = useState<{ w: number; h: number } | null>(null);
  /** The poster moment: being sought, shown (until play or a seek of the user's), or none. */
  const posterState = useRef<'none' | 'seeking' | 'shown'>('none');
  const ar = shape ? shape.w / shape.h : 16 / 9;
  return (
    <video
      {...rest}
      poster={poster}
      autoPlay={autoPlay}
      preload={rest.preload ?? 'auto'}
      data-aspect={shape ? `${shape.w}x${shape.h}` : undefined}
      style={{
        aspectRatio: `${ar}`,
        width: `min(100%, ${Math.round(maxHeightVh * ar * 100) / 100}vh)`,
        height: 'auto',
        display: 'block',
        margin: '0 auto',
      }}
      onLoadedMetadata={(e) => {
        const v = e.currentTarget;
        if (v.videoWidth && v.videoHeight) setShape({ w: v.videoWidth, h: v.videoHeight });
        if (!poster && !autoPlay && v.currentTime === 0 && Number.isFinite(v.duration) && v.duration > 1) {
          posterState.current = 'seeking';
          v.currentTime = posterTime(v.duration);
        }
        onLoadedMetadata?.(e);
      }}
      onSeeked={(e) => {
        if (posterState.current === 'seeking') posterState.current = 'shown';
        onSeeked?.(e);
      }}
      onSeeking={(e) => {
        if (posterState.current === 'shown') posterState.current = 'none';
        onSeeking?.(e);
      }}
      onPlay={(e) => {
        if (posterState.current !== 'none') {
          posterState.current = 'none';
          e.currentTarget.currentTime = 0;
        }
        onPlay?.(e);
      }}
    />
  );
}
