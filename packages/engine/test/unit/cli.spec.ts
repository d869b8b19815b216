import { parseCli } from '../../src/cli';

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
});
