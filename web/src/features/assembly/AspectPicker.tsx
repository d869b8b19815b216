import type { Aspect } from '../../api/types';

const ASPECTS: Array<{ value: Aspect; label: string; hint: string; w: number; h: number }> = [
  { value: '16:9', label: '16:9', hint: 'Landscape (YouTube, TV)', w: 16, h: 9 },
  { value: '9:16', label: '9:16', hint: 'Vertical (Reels, Shorts, TikTok)', w: 9, h: 16 },
  { value: '1:1', label: '1:1', hint: 'Square (feeds)', w: 1, h: 1 },
];

/**
 * The output shape, as a radio group of small frames. Each frame shows how a landscape (16:9)
 * clip lands in it: whole with bars (letterbox on) or filling the frame, cropped (letterbox off).
 */
export function AspectPicker({ value, letterbox, onChange }: { value: Aspect; letterbox: boolean; onChange: (a: Aspect) => void }) {
  return (
    <fieldset className="aspects">
      <legend>Shape</legend>
      {ASPECTS.map((a) => {
        const box = 56;
        const fw = a.w >= a.h ? box : (box * a.w) / a.h;
        const fh = a.h >= a.w ? box : (box * a.h) / a.w;
        // A 16:9 source inside the frame: fit (letterbox) or cover (fill, cropped).
        const fit = Math.min(fw / 16, fh / 9);
        const cover = Math.max(fw / 16, fh / 9);
        const s = letterbox ? fit : cover;
        const pw = 16 * s;
        const ph = 9 * s;
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
                x={(box - pw) / 2}
                y={(box - ph) / 2}
                width={pw}
                height={ph}
                fill="var(--accent)"
                opacity="0.75"
                clipPath={`url(#frame-${a.w}-${a.h})`}
              />
            </svg>
            <span>
              {a.label}
              <span className="muted small"> {a.hint}</span>
            </span>
          </label>
        );
      })}
      <p className="muted small">
        {letterbox ? 'Letterbox on: the whole picture, with bars.' : 'Letterbox off: the picture fills the frame, cropped.'}
      </p>
    </fieldset>
  );
}
