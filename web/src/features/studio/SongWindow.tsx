import { useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { PlanMusic } from '../../api/types';
import { PAGE_BARS, barNumber, dragStart, keyStep, minSec, nearestStart, sectionName, windowStarts, windowText } from './song-window';

/**
 * The whole song under the plan preview when the reel plays only part of it (issue 34): its
 * waveform, its sections (named by kind, shaded by energy), its bar lines and the window the reel
 * plays. The window is a slider: drag it, or focus it and use the arrow keys (a bar), PageUp and
 * PageDown (4 bars), Home and End. It snaps to the bar lines the engine can start on, and each
 * choice re-plans at once (`onChoose`), without analysing the song again.
 */
export function SongWindow({
  music,
  start,
  lengthSec,
  targetSec,
  picked,
  onChoose,
}: {
  music: PlanMusic;
  /** Seconds into the song where the current plan's music begins. */
  start: number;
  /** The plan's length (the window's width). */
  lengthSec: number;
  /** The requested length (which bar lines a window can start on). */
  targetSec: number;
  /** The start the user picked whose plan is still being made (shown meanwhile), or null. */
  picked: number | null;
  onChoose: (start: number) => void;
}) {
  const duration = music.duration_sec || 1;
  const bars = music.downbeats;
  const starts = useMemo(() => windowStarts(bars, duration, targetSec), [bars, duration, targetSec]);
  const track = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  /** A drag under way: where the window was grabbed (seconds after its start) and where it would start now. */
  const [drag, setDrag] = useState<{ grab: number; at: number } | null>(null);

  const shown = drag?.at ?? picked ?? start;
  const at = nearestStart(starts, shown);
  const choose = (t: number) => {
    if (Math.abs(t - (picked ?? start)) < 1e-6) return;
    onChoose(t);
  };
  const onKey = (e: KeyboardEvent) => {
    const i = keyStep(e.key, at, starts.length);
    if (i === undefined) return;
    e.preventDefault();
    choose(starts[i]!);
  };
  const songTime = (e: PointerEvent) => {
    const r = track.current!.getBoundingClientRect();
    return ((e.clientX - r.left) / Math.max(1, r.width)) * duration;
  };
  const grab = (e: PointerEvent<HTMLDivElement>, grabSec: number) => {
    e.preventDefault();
    frame.current?.focus();
    e.currentTarget.setPointerCapture(e.pointerId);
    const t = dragStart(starts, songTime(e), grabSec);
    if (t !== undefined) setDrag({ grab: grabSec, at: t });
  };
  const move = (e: PointerEvent) => {
    if (!drag) return;
    const t = dragStart(starts, songTime(e), drag.grab);
    if (t !== undefined && t !== drag.at) setDrag({ ...drag, at: t });
  };
  const drop = () => {
    if (!drag) return;
    setDrag(null);
    choose(drag.at);
  };
  const pct = (t: number) => `${(Math.min(duration, Math.max(0, t)) / duration) * 100}%`;
  const firstBar = barNumber(bars, shown);
  const lastBar = barNumber(bars, shown + lengthSec - 0.05);
  const w = 600;
  const h = 60;
  const slice = w / Math.max(music.peaks.length, 1);

  return (
    <div className="song-window" role="group" aria-label="The part of the song on the reel" data-testid="song-window">
      <div className="song-window-head">
        <strong>Part of the song</strong>
        <span data-testid="window-start" aria-live="polite">
          {minSec(shown)}–{minSec(shown + lengthSec)} of {minSec(duration)} · bars {firstBar}–{lastBar}
          {picked !== null ? ' · planning…' : ''}
        </span>
      </div>
      <div
        className="song-track"
        ref={track}
        onPointerDown={(e) => {
          // A press beside the window brings its middle there.
          if (e.target === e.currentTarget || !(e.target as HTMLElement).closest('.song-window-frame')) grab(e, lengthSec / 2);
        }}
        onPointerMove={move}
        onPointerUp={drop}
        onPointerCancel={() => setDrag(null)}
      >
        <div className="song-sections" aria-hidden="true">
          {music.sections.map((s, i) => (
            <span
              key={i}
              className={`song-section${s.kind === 'chorus' ? ' chorus' : ''}`}
              style={{ left: pct(s.start), width: `calc(${pct(s.end)} - ${pct(s.start)})`, opacity: 0.35 + 0.65 * s.energy }}
              title={`${sectionName(s)}: ${minSec(s.start)}–${minSec(s.end)}, energy ${Math.round(s.energy * 100)}%`}
              data-testid="song-section"
            >
              {sectionName(s)}
            </span>
          ))}
        </div>
        <svg className="song-wave" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" aria-hidden="true">
          {music.peaks.map((p, i) => {
            const bh = Math.max(1, p * (h - 6));
            return <rect key={i} x={i * slice} y={(h - bh) / 2} width={Math.max(0.6, slice - 0.4)} height={bh} fill="var(--muted)" />;
          })}
          {bars.map((t, i) => (
            <line key={i} className="bar-line" x1={(t / duration) * w} x2={(t / duration) * w} y1={0} y2={h} data-testid="bar-line" />
          ))}
        </svg>
        <div
          ref={frame}
          className={`song-window-frame${drag ? ' dragging' : ''}`}
          style={{ left: pct(shown), width: `calc(${pct(shown + lengthSec)} - ${pct(shown)})` }}
          role="slider"
          tabIndex={0}
          aria-label="Start of the reel's music"
          aria-orientation="horizontal"
          aria-valuemin={starts.length ? barNumber(bars, starts[0]!) : firstBar}
          aria-valuemax={starts.length ? barNumber(bars, starts[starts.length - 1]!) : firstBar}
          aria-valuenow={firstBar}
          aria-valuetext={windowText(bars, shown)}
          data-start={shown}
          onKeyDown={onKey}
          onPointerDown={(e) => grab(e, songTime(e) - shown)}
        />
      </div>
      <p className="muted small">
        Drag the window
        <span className="keys-hint">, or focus it and use ←/→ (a bar), PageUp/PageDown ({PAGE_BARS} bars), Home/End</span>. It starts and
        ends on bar lines.
      </p>
    </div>
  );
}
