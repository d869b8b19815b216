import { useState } from 'react';
// The limits the server checks, from the one definition (a pure file of proto, not a copy).
import { TARGET_DURATION_LIMITS } from '../../../../proto/src/reel-length.ts';
import { NumberField } from './NumberField';

/** The target lengths offered at once (seconds); anything else from 5 to 600 is a custom value. */
export const LENGTH_PRESETS = [15, 30, 60, 90] as const;

/**
 * Whether the reel will be cut to the song: the target is longer than the song (the reel is the
 * whole song), as the server clamps it. Unknown song length: not yet.
 */
export const clampedToSong = (target: number | null | undefined, songSeconds: number | undefined) =>
  target !== null && target !== undefined && songSeconds !== undefined && songSeconds > 0 && target > songSeconds;

/**
 * The reel's length: presets (15, 30, 60, 90 s and the whole song) and a custom value, as a radio
 * group (arrow keys move between them). A target is cut from the best part of the song on its
 * bar lines; a target longer than the song gives the whole song, and the notice says so.
 */
export function ReelLengthPicker({
  value,
  hasMusic,
  songSeconds,
  onChange,
  onProblem,
}: {
  value: number | null | undefined;
  hasMusic: boolean;
  songSeconds?: number;
  onChange: (seconds: number | null) => void;
  onProblem: (problem: string) => void;
}) {
  const target = value ?? null;
  const [custom, setCustom] = useState(() => target !== null && !(LENGTH_PRESETS as readonly number[]).includes(target));
  const clamped = clampedToSong(target, hasMusic ? songSeconds : undefined);
  return (
    <fieldset className="reel-length">
      {/* The preset radios and the Whole song radio look alike by design: one radio group, each choice its own value. */}
      <legend>Length</legend>
      {LENGTH_PRESETS.map((s) => (
        <label key={s} className="check">
          <input
            type="radio"
            name="reel-length"
            checked={!custom && target === s}
            onChange={() => {
              setCustom(false);
              onChange(s);
            }}
          />{' '}
          <span>{s} s</span>
        </label>
      ))}
      <label className="check">
        <input
          type="radio"
          name="reel-length"
          checked={!custom && target === null}
          onChange={() => {
            setCustom(false);
            onChange(null);
          }}
        />{' '}
        <span>{hasMusic ? 'Whole song' : 'All the footage'}</span>
      </label>
      <label className="check">
        <input
          type="radio"
          name="reel-length"
          checked={custom}
          onChange={() => {
            setCustom(true);
            if (target === null) onChange(45);
          }}
        />{' '}
        <span>Custom</span>
      </label>
      {custom && (
        <NumberField
          label="Length (seconds)"
          value={target ?? 45}
          limits={TARGET_DURATION_LIMITS}
          step={1}
          onValue={(n) => onChange(n)}
          onProblem={onProblem}
        />
      )}
      {clamped && (
        <p className="notice small" role="status">
          Your song is only {Math.round(songSeconds!)} s long, so the reel will be the whole song.
        </p>
      )}
      {target !== null && hasMusic && !clamped && (
        <p className="muted small">Cut from the best part of the song, starting and ending on the bar.</p>
      )}
    </fieldset>
  );
}
