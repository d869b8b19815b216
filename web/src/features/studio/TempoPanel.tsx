import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { PlanMusic, TempoCorrectionKind } from '../../api/types';
import { tapBpm } from './timeline';

const CORRECTED: Record<TempoCorrectionKind, string> = {
  halve: 'halved',
  double: 'doubled',
  shift: 'shifted half a beat',
  tap: 'tapped',
};

/**
 * The tempo and meter found, and the corrections people ask for: halve, double, shift by half a
 * beat, tap tempo (T or Space on the tap pad along with the music; Enter uses it, Escape cancels),
 * and reset. Each is kept with the track and re-plans at once.
 */
export function TempoPanel({
  music,
  busy,
  onCorrect,
  now,
  startPlaying,
}: {
  music: PlanMusic;
  busy: boolean;
  onCorrect: (action: TempoCorrectionKind | 'reset', taps?: number[]) => void;
  now: () => number;
  startPlaying: () => void;
}) {
  const [taps, setTaps] = useState<number[] | null>(null);
  const [hint, setHint] = useState('');
  const pad = useRef<HTMLDivElement>(null);
  const tapButton = useRef<HTMLButtonElement>(null);
  const tapping = taps !== null;
  // The pad takes the focus while tapping; afterwards it goes back to Tap tempo (enabled again by then).
  const wasTapping = useRef(false);
  useEffect(() => {
    if (tapping) pad.current?.focus();
    else if (wasTapping.current) tapButton.current?.focus();
    wasTapping.current = tapping;
  }, [tapping]);
  const hasBeats = music.beats.length >= 2;
  const corrections = music.tempo_corrections;
  const found = Math.round(music.analysed_bpm);
  const shown = Math.round(music.tempo_bpm);
  const bpm = taps ? tapBpm(taps) : 0;

  const begin = () => {
    setHint('');
    setTaps([]);
    startPlaying();
  };
  const stop = () => {
    setTaps(null);
    setHint('');
  };
  const tap = () => setTaps((t) => (t ? [...t, Math.round(now() * 1000) / 1000].filter((x, i, a) => i === 0 || x > a[i - 1]!) : t));
  const use = () => {
    if (!taps || taps.length < 4) return setHint('Tap at least 4 times along with the music.');
    const t = taps;
    stop();
    onCorrect('tap', t);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 't' || e.key === 'T' || e.key === ' ') {
      e.preventDefault();
      if (!e.repeat) tap();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      use();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      stop();
    }
  };

  return (
    <div className="tempo-panel" role="group" aria-label="Tempo and meter">
      <span data-testid="plan-tempo">
        {shown > 0 ? `${shown} BPM` : 'No steady beat'} · {music.beats_per_bar}/4
        {corrections.length > 0
          ? ` · ${corrections.map((c) => CORRECTED[c]).join(', ')}${found > 0 && found !== shown ? ` (found ${found} BPM)` : ''}`
          : ''}
      </span>
      <div className="row wrap">
        <button className="btn" onClick={() => onCorrect('halve')} disabled={busy || tapping || !hasBeats}>
          Halve
        </button>
        <button className="btn" onClick={() => onCorrect('double')} disabled={busy || tapping || !hasBeats}>
          Double
        </button>
        <button className="btn" onClick={() => onCorrect('shift')} disabled={busy || tapping || !hasBeats}>
          Shift half a beat
        </button>
        <button className="btn" ref={tapButton} onClick={begin} disabled={busy || tapping} aria-expanded={tapping}>
          Tap tempo
        </button>
        {corrections.length > 0 && (
          <button className="btn link" onClick={() => onCorrect('reset')} disabled={busy || tapping}>
            Beats as found
          </button>
        )}
      </div>
      {tapping && (
        <div className="tap-row row wrap">
          <div
            ref={pad}
            className="tap-pad"
            role="button"
            tabIndex={0}
            data-testid="tap-pad"
            aria-describedby="tap-pad-keys"
            onKeyDown={onKey}
            onPointerDown={(e) => {
              e.preventDefault();
              pad.current?.focus();
              tap();
            }}
          >
            Tap here<span className="keys-hint"> (T or Space)</span> with the beat
          </div>
          {/* The pad's name is its visible text (axe: label-content-name-mismatch); the keys are its description. */}
          <span id="tap-pad-keys" className="sr-only">
            Press T or Space with each beat; Enter uses the tapped tempo, Escape cancels.
          </span>
          <span aria-live="polite" data-testid="tapped-bpm">
            {taps.length} taps{bpm > 0 ? ` · ${Math.round(bpm)} BPM` : ''}
          </span>
          <button className="btn" onClick={use} disabled={taps.length < 4}>
            Use tapped tempo
          </button>
          <button className="btn link" onClick={stop}>
            Cancel
          </button>
          {hint && <span className="error">{hint}</span>}
        </div>
      )}
    </div>
  );
}
