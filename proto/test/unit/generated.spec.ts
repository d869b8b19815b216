import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { subjects, streams, coreSubjects } from '../../src/subjects';

describe('contracts', () => {
  it('generated TypeScript matches the .proto files (run `npm run gen` after editing them)', () => {
    const gen = path.join(__dirname, '..', '..', 'gen.js');
    expect(() => execFileSync(process.execPath, [gen, '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('maps every durable subject to a stream that captures it', () => {
    const covered = (s: string) =>
      Object.values(streams).some((st) => st.subjects.some((p) => (p.endsWith('.>') ? s.startsWith(p.slice(0, -1)) : p === s)));
    for (const s of Object.keys(subjects)) expect([s, covered(s)]).toEqual([s, true]);
  });

  it('keeps live job status off the streams (core NATS only)', () => {
    const sample = coreSubjects.jobStatus.subject('abc');
    expect(sample).toBe('jobs.abc.status');
    const captured = Object.values(streams).some((st) =>
      st.subjects.some((p) => (p.endsWith('.>') ? sample.startsWith(p.slice(0, -1)) : p === sample)),
    );
    expect(captured).toBe(false);
  });
});
