import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import type { Client, Logger } from '@reelsmith/kit';
import { assembly } from '@reelsmith/proto';
import { orchestratorReporter } from '../../src/repositories/orchestrator.reporter';

/**
 * The worker's reports as the orchestrator receives them: each request is encoded as gRPC would
 * encode it, so a report that cannot go over the wire fails here as it would in the product.
 */
type ReportInit = MessageInitShape<typeof assembly.JobReportSchema>;

function fakeOrchestrator() {
  const sent: assembly.JobReport[] = [];
  const client = {
    reportJob: async (req: ReportInit) => {
      const bytes = toBinary(assembly.JobReportSchema, create(assembly.JobReportSchema, req));
      sent.push(create(assembly.JobReportSchema, req));
      expect(bytes.length).toBeGreaterThan(0);
      return { accepted: true };
    },
  };
  return { sent, client: client as unknown as Client<typeof assembly.AssemblyOrchestratorService> };
}

const warnings: unknown[] = [];
const log = { warn: (...a: unknown[]) => warnings.push(a), debug: () => undefined, info: () => undefined } as unknown as Logger;
const settle = () => new Promise((r) => setTimeout(r, 10));

describe('orchestrator reporter', () => {
  beforeEach(() => (warnings.length = 0));

  it("sends progress as a whole percent: a chunked render's 24.17 % reaches the orchestrator as 24", async () => {
    const o = fakeOrchestrator();
    const reporter = orchestratorReporter(o.client, log);
    reporter.progress('job-1', 2, 'rendering', 10 + (85 * 2) / 12);
    await settle();
    reporter.progress('job-1', 2, 'finalizing', 99.6);
    await settle();
    expect(o.sent.map((r) => (r.event.case === 'progress' ? r.event.value.percent : null))).toEqual([24, 100]);
    expect(o.sent.every((r) => r.attempt === 2 && r.jobId === 'job-1')).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('says so (a warning) when a progress report is not delivered', async () => {
    const reporter = orchestratorReporter(
      { reportJob: async () => Promise.reject(new Error('orchestrator unavailable')) } as unknown as Client<
        typeof assembly.AssemblyOrchestratorService
      >,
      log,
    );
    reporter.progress('job-2', 1, 'rendering', 40);
    await settle();
    expect(warnings).toHaveLength(1);
  });

  it('reports the chunks of a long reel and their workers with the completion', async () => {
    const o = fakeOrchestrator();
    const reporter = orchestratorReporter(o.client, log);
    const chunks = [
      { index: 0, worker: 'pod-a/12', frames: 75, seconds: 3.2 },
      { index: 1, worker: 'pod-b/40', frames: 76, seconds: 3.4 },
    ];
    await reporter.completed('job-3', 1, {
      outputKey: 'reels/u/job-3.mp4',
      thumbnailKey: 'reels/u/job-3.jpg',
      sizeBytes: 1234,
      durationSec: 5.03,
      chunks,
    });
    const done = o.sent[0]!.event;
    expect(done.case).toBe('completed');
    if (done.case === 'completed')
      expect(done.value.chunks.map((c) => ({ ...c, $typeName: undefined }))).toEqual(chunks.map((c) => ({ ...c, $typeName: undefined })));
  });
});
