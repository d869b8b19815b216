/**
 * A track's waveform (peaks, 0..1) with a marker on every beat. Downbeats are drawn stronger: the
 * given ones, or every fourth beat when the track's bars are not known.
 */
export function Waveform({
  peaks,
  beats,
  downbeats,
  duration,
  className,
}: {
  peaks: number[];
  beats: number[];
  downbeats?: number[];
  duration: number;
  className?: string;
}) {
  const w = 600;
  const h = 90;
  const bar = w / Math.max(peaks.length, 1);
  const strong = downbeats ? new Set(downbeats.map((t) => Math.round(t * 1000))) : undefined;
  const isDownbeat = (t: number, i: number) => (strong ? strong.has(Math.round(t * 1000)) : i % 4 === 0);
  return (
    <svg
      className={className ? `waveform ${className}` : 'waveform'}
      viewBox={`0 0 ${w} ${h}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={`Waveform with ${beats.length} beat markers`}
    >
      {peaks.map((p, i) => {
        const bh = Math.max(1, p * (h - 10));
        return <rect key={i} x={i * bar} y={(h - bh) / 2} width={Math.max(1, bar - 0.5)} height={bh} fill="var(--muted)" />;
      })}
      {duration > 0 &&
        beats.map((t, i) => {
          const down = isDownbeat(t, i);
          return (
            <line
              key={`b${i}`}
              data-testid="beat-marker"
              data-downbeat={down || undefined}
              className={down ? 'beat downbeat' : 'beat'}
              x1={(t / duration) * w}
              x2={(t / duration) * w}
              y1={0}
              y2={h}
              stroke="var(--accent)"
              strokeWidth={down ? 1.6 : 0.7}
              opacity={down ? 0.95 : 0.55}
            />
          );
        })}
    </svg>
  );
}
