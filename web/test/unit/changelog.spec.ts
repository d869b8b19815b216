import fs from 'node:fs';
import path from 'node:path';
import { parseChangelog } from '../../src/features/public/changelog';

// Opens like other parser specs (clip-sampling's packet index) in form only: the input written out line by line.
describe("About's history, from CHANGELOG.md", () => {
  it('reads days and their items, wrapped lines joined, code marks dropped', () => {
    const md = [
      '# Changelog',
      '',
      'Intro text.',
      '',
      '## 2026-11-24',
      '',
      '- One thing',
      '  that wraps.',
      '- `npm start` works',
      '',
      '## 2026-11-21',
      '',
      '- First',
    ].join('\n');
    expect(parseChangelog(md)).toEqual([
      { date: '2026-11-24', items: ['One thing that wraps.', 'npm start works'] },
      { date: '2026-11-21', items: ['First'] },
    ]);
  });
  it("the repository's changelog: newest day first, each with what shipped", () => {
    const days = parseChangelog(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'CHANGELOG.md'), 'utf8'));
    expect(days.length).toBeGreaterThanOrEqual(5);
    expect(days.map((d) => d.date)).toEqual([...days.map((d) => d.date)].sort().reverse());
    expect(days.at(-1)!.date).toBe('2026-11-21');
    for (const d of days) expect(d.items.length).toBeGreaterThan(0);
  });
});
