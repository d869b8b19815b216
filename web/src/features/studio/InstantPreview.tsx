import { useCallback, useEffect, useRef } from 'react';
import type { EditPlan } from '../../api/types';
import { clock } from '../assembly';
import { frameView, viewStyle } from './framing-view';
import { segmentAt, sourceTime } from './timeline';

/**
 * The plan played in the browser without rendering: the source clip of each segment seeked to its
 * moment in a video element, in step with the music (its clock drives the playhead), inside a
 * frame of the reel's shape that shows the segment's framing as the render makes it: the plan's
 * crop path followed frame by frame, letterbox with bars, or the centre crop (framing-view.ts).
 */
export function InstantPreview({
  plan,
  framing,
  clipSources,
  musicSource,
  playhead,
  playing,
  onPlayhead,
  onPlaying,
  playSignal = 0,
}: {
  plan: EditPlan;
  /** The request's framing: how segments the plan does not frame are shown. */
  framing?: string;
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
  const frame = useRef<HTMLDivElement>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const current = useRef(-1);
  /** The reel time last shown (the frame is placed again once the clip's size is known). */
  const lastT = useRef(0);
  const started = useRef({ at: 0, from: 0 });

  /** Places the video in the frame as segment `i`'s framing has it at source time `at`. */
  const frameAt = useCallback(
    (i: number, at: number) => {
      const v = video.current;
      const box = frame.current;
      const s = plan.segments[i];
      if (!v || !box || !s) return;
      const [aw, ah] = plan.aspect.split(':').map(Number) as [number, number];
      const view = frameView(s.framing, framing, { w: v.videoWidth, h: v.videoHeight }, aw / ah, at);
      Object.assign(v.style, viewStyle(view));
      const f = s.framing;
      box.dataset.framing = f?.mode ?? framing ?? '';
      box.dataset.camera = f?.camera ?? '';
      box.dataset.view = view.kind === 'fit' ? 'fit' : [view.x, view.y, view.w, view.h].map((x) => Math.round(x * 1e4) / 1e4).join(',');
    },
    [plan, framing],
  );

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
      lastT.current = t;
      // The crop follows the frame on screen: while this segment's moment plays, the video's own
      // time (it can lag the music clock after a seek, and the path moves with the picture).
      const onScreen = !force && !v.seeking && !v.paused ? Math.min(s.out, Math.max(s.in, v.currentTime)) : sourceTime(s, t);
      frameAt(i, onScreen);
    },
    [plan, clipSources, frameAt],
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
      <div className="preview-frame" ref={frame} data-testid="preview-frame">
        <video
          ref={video}
          muted
          playsInline
          preload="auto"
          aria-label="Instant preview of the edit"
          onLoadedMetadata={() => {
            const s = plan.segments[current.current];
            if (s) frameAt(current.current, sourceTime(s, lastT.current));
          }}
        />
      </div>
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
