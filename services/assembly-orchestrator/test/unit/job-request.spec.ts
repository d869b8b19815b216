import { parseSettings } from '@reelsmith/engine';
import { jobRequestSchema } from '../../src/domain/job-request';

/**
 * The orchestrator validates the spec's job request at the API, and the engine validates the
 * same settings again before it renders. The two schemas live apart (the orchestrator does not
 * load the engine), so this keeps them from drifting: same defaults, same accepted values.
 */
describe('job request and engine settings agree', () => {
  const shared = [
    'pacing_preset',
    'enable_beat_mapping',
    'enable_intelligence',
    'title_config',
    'enable_fades',
    'fade_in_duration_sec',
    'fade_out_duration_sec',
    'enable_letterbox',
    'output_filename',
  ] as const;
  const pick = (o: Record<string, unknown>) => Object.fromEntries(shared.map((k) => [k, o[k]]));

  it('has the same defaults', () => {
    expect(pick(jobRequestSchema.parse({}))).toEqual(pick(parseSettings({})));
  });

  it('accepts and refuses the same values', () => {
    const cases: Array<Record<string, unknown>> = [
      { pacing_preset: 'high-energy' },
      { pacing_preset: 'frantic' },
      { title_config: { font: 'Arial-Bold.ttf', position: 'bottom', font_size: 400 } },
      { title_config: { font: 'Comic.ttf' } },
      { title_config: { font_size: 7 } },
      { title_config: { position: 'left' } },
      { title_config: { text: 'x'.repeat(201) } },
      { fade_in_duration_sec: 10 },
      { fade_out_duration_sec: 10.5 },
      { fade_in_duration_sec: -1 },
      { output_filename: 'y'.repeat(201) },
      { enable_letterbox: 'yes' },
    ];
    for (const c of cases) {
      const api = jobRequestSchema.safeParse(c).success;
      let engine = true;
      try {
        parseSettings(c);
      } catch {
        engine = false;
      }
      expect([c, api]).toEqual([c, engine]);
    }
  });
});
