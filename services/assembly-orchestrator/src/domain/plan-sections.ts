/**
 * The song's sections as the plan preview shows them, read from media-library's music analysis
 * (the engine's `songSections`, kept with the analysis at upload; analyses made before sections
 * have none). Anything that is not a well-formed section is left out.
 */
export interface PlanSectionInfo {
  start: number;
  end: number;
  label: string;
  kind: string;
  energy: number;
}

const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function planSections(analysis: unknown): PlanSectionInfo[] {
  const raw = (analysis as { sections?: unknown } | undefined)?.sections;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((s: unknown) => {
    const x = s as Partial<Record<keyof PlanSectionInfo, unknown>> | null;
    if (!x || !num(x.start) || !num(x.end) || !(x.end > x.start)) return [];
    return [
      {
        start: x.start,
        end: x.end,
        label: typeof x.label === 'string' ? x.label : '',
        kind: typeof x.kind === 'string' ? x.kind : '',
        energy: num(x.energy) ? Math.min(1, Math.max(0, x.energy)) : 0,
      },
    ];
  });
}
