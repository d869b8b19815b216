/** A track's waveform (peaks, 0..1) with a marker on every beat; downbeats every fourth beat drawn stronger. */
export function Waveform({ peaks, beats, duration }: { peaks: number[]; beats: number[]; duration: number }) {
  const w = 600;
  const h = 90;
  const bar = w / Math.max(peaks.length, 1);
  return (
    <svg
      className="waveform"
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
        beats.map((t, i) => (
          <line
            key={`b${i}`}
            data-testid="beat-marker"
            x1={(t / duration) * w}
            x2={(t / duration) * w}
            y1={0}
            y2={h}
            stroke="var(--accent)"
            strokeWidth={i % 4 === 0 ? 1.6 : 0.7}
            opacity={i % 4 === 0 ? 0.95 : 0.55}
          />
        ))}
    </svg>
  );
}
