import { useCallback, useEffect, useRef } from 'react';
import type { EditPlan } from '../../api/types';
import { clock } from '../assembly';
import { segmentAt, sourceTime } from './timeline';

/**
 * The plan played in the browser without rendering: the source clip of each segment seeked to its
 * moment in a video element, in step with the music (its clock drives the playhead).
 */
export function InstantPreview({
  plan,
  clipSources,
  musicSource,
  playhead,
  playing,
  onPlayhead,
  onPlaying,
  playSignal = 0,
}: {
  plan: EditPlan;
  clipSources: string[];
  musicSource?: string;
  playhead: number;
  playing: boolean;
  onPlayhead: (t: number) => void;
  onPlaying: (p: boolean) => void;
  /** Starts playing when it changes (tap tempo plays the music to tap along with). */
  playSignal?: number;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const current = useRef(-1);
  const started = useRef({ at: 0, from: 0 });

  const show = useCallback(
    (t: number, force = false) => {
      const v = video.current;
      if (!v) return;
      const i = segmentAt(plan, t);
      const s = plan.segments[i]!;
      const src = clipSources[s.clip] ?? '';
      if (force || i !== current.current) {
        current.current = i;
        if (src && !v.src.endsWith(src)) v.src = src;
        v.currentTime = sourceTime(s, t);
      }
    },
    [plan, clipSources],
  );

  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    const tick = () => {
      const a = audio.current;
      const t =
        a && musicSource ? a.currentTime - (plan.music_start ?? 0) : started.current.from + (performance.now() - started.current.at) / 1000;
      if (t >= plan.total_sec) {
        onPlaying(false);
        onPlayhead(0);
        return;
      }
      onPlayhead(t);
      show(t);
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [playing, plan, musicSource, onPlayhead, onPlaying, show]);

  useEffect(() => {
    if (!playing) show(playhead, true);
    // Seek when paused or when the plan changes; during play the clock drives it.
  }, [plan, playing]);

  const toggle = () => {
    const v = video.current;
    const a = audio.current;
    if (playing) {
      v?.pause();
      a?.pause();
      onPlaying(false);
      return;
    }
    started.current = { at: performance.now(), from: playhead };
    current.current = -1;
    if (a && musicSource) {
      a.currentTime = playhead + (plan.music_start ?? 0);
      void a.play().catch(() => undefined);
    }
    void v?.play().catch(() => undefined);
    onPlaying(true);
  };

  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;
  const playingRef = useRef(playing);
  playingRef.current = playing;
  useEffect(() => {
    if (playSignal && !playingRef.current) toggleRef.current();
  }, [playSignal]);

  return (
    <div className={`instant-preview aspect-${plan.aspect.replace(':', 'x')}`}>
      <video ref={video} muted playsInline preload="auto" aria-label="Instant preview of the edit" />
      {musicSource && <audio ref={audio} src={musicSource} preload="auto" />}
      <div className="row">
        <button className="btn" onClick={toggle} data-testid="preview-play">
          {playing ? 'Pause' : 'Play preview'}
        </button>
        <span className="muted small">
          {clock(playhead)} / {clock(plan.total_sec)} · a quick look, not the render
        </span>
      </div>
    </div>
  );
}
