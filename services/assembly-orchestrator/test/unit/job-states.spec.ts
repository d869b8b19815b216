import { canMove, isTerminal, sourcesOf } from '../../src/domain/job-states';

describe('job state machine', () => {
  it('allows only the legal moves', () => {
    expect(canMove('queued', 'processing')).toBe(true);
    // A completion is recorded (finalizing) before it is charged; from there only completed.
    expect(canMove('processing', 'finalizing')).toBe(true);
    expect(canMove('processing', 'completed')).toBe(false);
    expect(canMove('processing', 'failed')).toBe(true);
    expect(canMove('queued', 'completed')).toBe(false);
    for (const to of ['cancelled', 'failed', 'processing'] as const) expect(canMove('finalizing', to)).toBe(false);
    for (const end of ['completed', 'failed', 'cancelled'] as const) {
      expect(isTerminal(end)).toBe(true);
      for (const to of ['queued', 'processing', 'finalizing', 'completed', 'failed', 'cancelled'] as const)
        expect(canMove(end, to)).toBe(false);
    }
    expect(sourcesOf('completed')).toEqual(['finalizing']);
    expect(sourcesOf('cancelled')).toEqual(['queued', 'processing']);
  });
});
