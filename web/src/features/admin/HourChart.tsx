import { formatCount } from '../../base/format';

const hh = (iso: string) => `${String(new Date(iso).getHours()).padStart(2, '0')}:00`;

/** A bar chart of one figure per hour, drawn as inline SVG (no chart library). */
export function HourChart({ title, points, colour }: { title: string; points: { hour: string; value: number }[]; colour: string }) {
  const w = 480;
  const h = 120;
  const pad = 18;
  const max = Math.max(1, ...points.map((p) => p.value));
  const bw = points.length ? (w - pad) / points.length : 0;
  const total = points.reduce((a, p) => a + p.value, 0);
  const label = `${title}: ${formatCount(total)} in the last 24 hours, at most ${formatCount(max)} in one hour`;
  return (
    <figure className="hour-chart">
      <figcaption>
        {title} <span className="muted">({formatCount(total)})</span>
      </figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line x1={pad} y1={h - pad} x2={w} y2={h - pad} stroke="var(--border)" />
        {points.map((p, i) => {
          const bh = ((h - 2 * pad) * p.value) / max;
          return (
            <rect key={p.hour} x={pad + i * bw + 1} y={h - pad - bh} width={Math.max(1, bw - 2)} height={bh} fill={colour}>
              <title>{`${hh(p.hour)}: ${p.value}`}</title>
            </rect>
          );
        })}
      </svg>
      {points.length > 0 && (
        <div className="hour-scale" aria-hidden="true">
          <span>{hh(points[0]!.hour)}</span>
          <span>at most {formatCount(max)} an hour</span>
          <span>now</span>
        </div>
      )}
    </figure>
  );
}
