import { ack, type Bus, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { Logger } from 'pino';
import { CONSUMED, type Consumed } from '../domain/facts.js';
import type { TelemetryService } from '../domain/telemetry.service.js';

/** The durable consumer's name for one subject, e.g. telemetry-identity-user_logged_in. */
export const durableName = (subject: Consumed) => `telemetry-${subject.replace(/^events\./, '').replace(/\./g, '-')}`;

/**
 * One durable pull consumer per fact on the EVENTS stream: a restart resumes where it stopped,
 * and a message that is delivered again is recorded once (by its message id).
 */
export async function consumeEvents(bus: Bus, service: TelemetryService, log: Logger): Promise<RunningConsumer[]> {
  const running: RunningConsumer[] = [];
  for (const subject of CONSUMED)
    running.push(
      await bus.consume(
        subject,
        {
          stream: streams.EVENTS,
          durable: durableName(subject),
          ackWaitMs: 30_000,
          maxDeliver: 20,
          concurrency: 1,
          onDeadLetter: async (d, err) => log.error({ err, subject, msg_id: d.msgId }, 'event could not be recorded'),
        },
        async (d) => {
          await service.record(subject, d.msgId, d.data as never);
          return ack();
        },
      ),
    );
  return running;
}
