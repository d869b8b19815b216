import type { Aspect } from '../../api/types';
import { FRAMING_CHOICES, framingFor, framingLabel, type Framing } from './framing';

const ASPECTS: Array<{ value: Aspect; label: string; hint: string; w: number; h: number }> = [
  { value: '16:9', label: '16:9', hint: 'Landscape (YouTube, TV)', w: 16, h: 9 },
  { value: '9:16', label: '9:16', hint: 'Vertical (Reels, Shorts, TikTok)', w: 9, h: 16 },
  { value: '1:1', label: '1:1', hint: 'Square (feeds)', w: 1, h: 1 },
];

/**
 * The output shape, as a radio group of small frames, and the framing: how clips of another shape
 * fill it. Each frame shows how a landscape (16:9) clip lands in it with the framing that shape
 * gets: whole with bars (letterbox), filling the frame cropped in the middle (centre crop), or a
 * crop that moves with the subject (drawn off-centre, with the subject and its path), and names it.
 */
export function AspectPicker({
  value,
  chosen,
  letterbox,
  onChange,
  onFraming,
}: {
  value: Aspect;
  /** The framing the user picked for this reel (null: each shape's default). */
  chosen: Framing | null | undefined;
  /** The saved default letterbox setting (landscape reels' default framing). */
  letterbox: boolean;
  onChange: (a: Aspect) => void;
  onFraming: (f: Framing) => void;
}) {
  const applied = framingFor(value, chosen, letterbox);
  return (
    <fieldset className="aspects">
      <legend>Shape</legend>
      {ASPECTS.map((a) => {
        const framing = framingFor(a.value, chosen, letterbox);
        const box = 56;
        const fw = a.w >= a.h ? box : (box * a.w) / a.h;
        const fh = a.h >= a.w ? box : (box * a.h) / a.w;
        // A 16:9 source inside the frame: fit (letterbox) or cover (cropped: centred, or moved
        // towards the subject, which sits left of the middle).
        const fit = Math.min(fw / 16, fh / 9);
        const cover = Math.max(fw / 16, fh / 9);
        const s = framing === 'letterbox' ? fit : cover;
        const pw = 16 * s;
        const ph = 9 * s;
        const shift = framing === 'subject' ? Math.min((pw - fw) / 2, pw * 0.22) : 0;
        const px = (box - pw) / 2 + shift;
        const subjectX = px + pw * 0.28;
        return (
          <label key={a.value} className={`aspect${value === a.value ? ' on' : ''}`} title={a.hint}>
            <input type="radio" name="aspect" value={a.value} checked={value === a.value} onChange={() => onChange(a.value)} />
            <svg width={box} height={box} viewBox={`0 0 ${box} ${box}`} aria-hidden="true">
              <defs>
                <clipPath id={`frame-${a.w}-${a.h}`}>
                  <rect x={(box - fw) / 2} y={(box - fh) / 2} width={fw} height={fh} />
                </clipPath>
              </defs>
              <rect x={(box - fw) / 2} y={(box - fh) / 2} width={fw} height={fh} fill="#000" stroke="var(--border)" />
              <rect
                x={px}
                y={(box - ph) / 2}
                width={pw}
                height={ph}
                fill="var(--accent)"
                opacity="0.75"
                clipPath={`url(#frame-${a.w}-${a.h})`}
              />
              {framing === 'subject' && (
                <circle cx={subjectX} cy={box / 2} r={Math.max(3, ph * 0.12)} fill="#fff" clipPath={`url(#frame-${a.w}-${a.h})`} />
              )}
            </svg>
            <span>
              {a.label}
              <span className="muted small"> {a.hint}</span>
              <span className="small framing-name" data-testid={`framing-of-${a.value}`}>
                {' '}
                · {framingLabel(framing)}
              </span>
            </span>
          </label>
        );
      })}
      <div className="framings" role="radiogroup" aria-label="Framing">
        {FRAMING_CHOICES.map((f) => (
          <label key={f.value} className={`framing${applied === f.value ? ' on' : ''}`}>
            <input type="radio" name="framing" value={f.value} checked={applied === f.value} onChange={() => onFraming(f.value)} />{' '}
            {f.label}
          </label>
        ))}
      </div>
      <p className="muted small" data-testid="framing-note">
        {value} · {framingLabel(applied)}: {FRAMING_CHOICES.find((f) => f.value === applied)!.hint}. A clip already of this shape is never
        cropped.
      </p>
    </fieldset>
  );
}
