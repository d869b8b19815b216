import { resolveFraming } from '@reelsmith/proto';
import { framingWords, parseCli, timingsLine } from '../../src/cli';
import { parseSettings } from '../../src/settings';

describe('reelsmith-render arguments', () => {
  const clip = ['--clip', 'a.mp4', '--out', 'reel.mp4'];

  it("refuses a pacing, aspect or title position the job request does not have, listing the contract's values", () => {
    expect(() => parseCli([...clip, '--pacing', 'frantic'])).toThrow('--pacing must be relaxed, standard or high-energy, not frantic');
    expect(() => parseCli([...clip, '--aspect', '4:3'])).toThrow('--aspect must be 16:9, 9:16 or 1:1');
    expect(() => parseCli([...clip, '--title-position', 'left'])).toThrow('--title-position must be top, center or bottom');
  });

  it('takes every value of the contract', () => {
    for (const aspect of ['16:9', '9:16', '1:1']) expect(parseCli([...clip, '--aspect', aspect]).settings.aspect).toBe(aspect);
    for (const pacing of ['relaxed', 'standard', 'high-energy'])
      expect(parseCli([...clip, '--pacing', pacing]).settings.pacing_preset).toBe(pacing);
  });

  it('--framing picks subject, letterbox or center; --no-letterbox is center; by default the aspect decides', () => {
    const framing = (...args: string[]) => resolveFraming(parseSettings(parseCli([...clip, ...args]).settings));
    expect(() => parseCli([...clip, '--framing', 'zoom'])).toThrow('--framing must be subject, letterbox or center, not zoom');
    for (const f of ['subject', 'letterbox', 'center']) expect(framing('--framing', f, '--aspect', '9:16')).toBe(f);
    expect(framing('--aspect', '9:16')).toBe('subject');
    expect(framing('--aspect', '1:1')).toBe('subject');
    expect(framing()).toBe('letterbox');
    expect(framing('--aspect', '9:16', '--no-letterbox')).toBe('center');
    expect(framing('--aspect', '9:16', '--no-letterbox', '--framing', 'subject')).toBe('subject');
    expect(
      framingWords({
        mode: 'subject',
        camera: 'pan',
        width: 606,
        height: 1080,
        path: [
          { t: 0, x: 0, y: 0 },
          { t: 2, x: 1314, y: 0 },
        ],
      }),
    ).toBe('subject pan 606x1080 0,0 -> 1314,0');
  });

  it('asks for a per-stage timing print with --timings, and prints the stages in the order they ran', () => {
    expect(parseCli(['--clip', 'a.mp4', '--out', 'r.mp4']).timings).toBe(false);
    expect(parseCli(['--clip', 'a.mp4', '--out', 'r.mp4', '--timings']).timings).toBe(true);
    const line = timingsLine(
      0.25,
      { probe: 120, analysis: 2400, clipAnalysis: 2300, musicAnalysis: 900, plan: 5, render: 10800, finalize: 3 },
      13.6,
    );
    expect(line).toBe(
      'timings: start-up 0.25 s, probe 0.12 s, analysis 2.40 s (clips 2.30 s, music 0.90 s, side by side), plan 0.01 s, render 10.80 s, finalize 0.00 s; total 13.60 s\n',
    );
    // A plan given (or --plan-only): only the stages that ran.
    expect(timingsLine(0.2, { probe: 50 }, 0.3)).toBe('timings: start-up 0.20 s, probe 0.05 s; total 0.30 s\n');
  });
});
