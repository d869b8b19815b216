import { context } from '@opentelemetry/api';
import { currentDeadline, withContextAndDeadline, withDeadline } from '../../src/grpc';
import { inSpan, startTracing, tracingStarted } from '../../src/tracing';

const later = () => new Promise((r) => setImmediate(r));

describe('the inherited deadline, once tracing runs (a value of the trace context)', () => {
  beforeAll(() => startTracing('deadline-test'));

  it('travels with async work, and a nested deadline only ever shortens it', async () => {
    expect(tracingStarted()).toBe(true);
    const seen = await withContextAndDeadline(context.active(), 5_000, async () => {
      await later();
      const outer = currentDeadline();
      const inner = await withDeadline(9_000, async () => {
        await later();
        return currentDeadline();
      });
      const shorter = await withDeadline(1_000, async () => currentDeadline());
      return { outer, inner, shorter };
    });
    expect(seen).toEqual({ outer: 5_000, inner: 5_000, shorter: 1_000 });
    expect(currentDeadline()).toBeUndefined();
  });

  it('is kept in a span made from the active context (as a gRPC handler runs)', async () => {
    const inSpanDeadline = await withContextAndDeadline(context.active(), 7_000, () =>
      inSpan('handler', context.active(), async () => {
        await later();
        return currentDeadline();
      }),
    );
    expect(inSpanDeadline).toBe(7_000);
  });

  it('runs without one when none is given', async () => {
    expect(await withContextAndDeadline(context.active(), undefined, async () => currentDeadline())).toBeUndefined();
  });
});
