import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import {
  coreSubjects,
  streams as declaredStreams,
  subjects,
  type CoreSubject,
  type CoreSubjectSchema as CoreSchema,
  type StreamSpec,
  type Subject,
  type SubjectSchema,
} from '@reelsmith/proto';
import {
  AckPolicy,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from 'nats';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';
import { extractTrace, injectTrace, inSpan } from './tracing.js';

export interface BusOptions {
  url: string;
  name: string;
  log: Logger;
  /** Credentials, when the NATS server requires them. */
  token?: string;
  user?: string;
  password?: string;
  /**
   * Prepended to every subject and stream name. Lets tests (and several deployments) share one
   * NATS server without seeing each other's messages. Empty in production.
   */
  prefix?: string;
  /** Handler durations by subject and outcome go here (nats_handler_seconds). */
  metrics?: Metrics;
}

export interface PublishOptions {
  /** JetStream drops a second message with the same id inside the stream's duplicate window. */
  msgId: string;
}

export interface PublishResult {
  seq: number;
  duplicate: boolean;
}

export interface Delivery<T> {
  data: T;
  subject: string;
  /** The publisher's message id (`Nats-Msg-Id`), or the stream sequence when it gave none. */
  msgId: string;
  /** 1 on the first delivery, 2 on the first redelivery... */
  deliveryCount: number;
  maxDeliver: number;
  /** True when a failure now means the message will not be delivered again. */
  lastAttempt: boolean;
  /** Tells JetStream the work is still in progress (the ack timer restarts). */
  working(): void;
}

/** What a handler decides; throwing counts as `retry`. */
export type Outcome = { kind: 'ack' } | { kind: 'retry'; delayMs?: number } | { kind: 'drop'; reason: string };
export const ack = (): Outcome => ({ kind: 'ack' });
export const retry = (delayMs?: number): Outcome => ({ kind: 'retry', delayMs });
export const drop = (reason: string): Outcome => ({ kind: 'drop', reason });

export interface ConsumerOptions<T> {
  stream: StreamSpec;
  durable: string;
  filterSubject?: Subject;
  /** How long a delivery may go without an ack or in-progress signal before it is redelivered. */
  ackWaitMs: number;
  /** Bounded redelivery: after this many deliveries a failing message goes to `onDeadLetter`. */
  maxDeliver: number;
  /** How many messages are worked on at once by this process. */
  concurrency?: number;
  /** Called (once) for a message that failed on its last allowed delivery, before it is dropped. */
  onDeadLetter?: (d: Delivery<T>, error: unknown) => Promise<void>;
}

export interface RunningConsumer {
  /** Stops pulling; messages being worked on finish (or are handed back by their handler). */
  stop(): Promise<void>;
  /** Messages currently being worked on. */
  inFlight(): number;
}

/** What publishCore and subscribeCore need of one kind, whatever its schema. */
interface CoreSubjectSpec {
  readonly pattern: string;
  readonly schema: DescMessage;
  subject(jobId: string): string;
}

const retentionOf = (r: StreamSpec['retention']) => (r === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits);

/** NATS core + JetStream with protobuf payloads from the typed subject map. */
export class Bus {
  private constructor(
    readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly log: Logger,
    private readonly prefix: string,
    private readonly metrics?: Metrics,
  ) {}

  static async connect(opts: BusOptions): Promise<Bus> {
    const nc = await connect({
      servers: opts.url,
      name: opts.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // The first dial waits a minute, not nats.js's 20 s: on a machine busy with other work a
      // service that gave up would be restarted by the supervisor and pay its whole start again.
      timeout: 60_000,
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.user ? { user: opts.user, pass: opts.password } : {}),
    });
    const jsm = await nc.jetstreamManager();
    return new Bus(nc, nc.jetstream(), jsm, opts.log.child({ component: 'bus' }), opts.prefix ?? '', opts.metrics);
  }

  subject(s: string): string {
    return `${this.prefix}${s}`;
  }

  streamName(spec: StreamSpec): string {
    return `${this.prefix.replace(/[^A-Za-z0-9_-]/g, '_')}${spec.name}`;
  }

  /** Creates the stream, or brings an existing one to the declared configuration. */
  async ensureStream(spec: StreamSpec): Promise<void> {
    const config = {
      name: this.streamName(spec),
      subjects: spec.subjects.map((s) => this.subject(s)),
      retention: retentionOf(spec.retention),
      storage: StorageType.File,
      duplicate_window: nanos(spec.duplicateWindowMs),
      max_age: nanos(spec.maxAgeMs),
    };
    try {
      await this.jsm.streams.info(config.name);
      await this.jsm.streams.update(config.name, config);
    } catch (e) {
      if (!String(e).includes('stream not found')) throw e;
      await this.jsm.streams.add(config);
    }
  }

  async ensureDeclaredStreams(): Promise<void> {
    for (const spec of Object.values(declaredStreams)) await this.ensureStream(spec);
  }

  async deleteStream(spec: StreamSpec): Promise<void> {
    await this.jsm.streams.delete(this.streamName(spec)).catch(() => undefined);
  }

  /** Publishes a durable fact or work item; the message id makes retries safe. */
  async publish<S extends Subject>(subject: S, message: MessageInitShape<SubjectSchema<S>>, opts: PublishOptions): Promise<PublishResult> {
    const schema: DescMessage = subjects[subject];
    const h = natsHeaders();
    for (const [k, v] of Object.entries(injectTrace({}))) h.set(k, v);
    const data = toBinary(schema, create(schema, message as never));
    const ack = await this.js.publish(this.subject(subject), data, { msgID: opts.msgId, headers: h });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /** Publishes bytes already encoded for `subject` (the outbox relay). */
  async publishRaw(subject: string, data: Uint8Array, msgId: string): Promise<PublishResult> {
    if (!(subject in subjects)) throw new Error(`unknown subject ${subject}`);
    const h = natsHeaders();
    for (const [k, v] of Object.entries(injectTrace({}))) h.set(k, v);
    const ack = await this.js.publish(this.subject(subject), data, { msgID: msgId, headers: h });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /** Runs `handler` for each message of a durable pull consumer, with in-progress acks. */
  async consume<S extends Subject>(
    subject: S,
    opts: ConsumerOptions<MessageShape<SubjectSchema<S>>>,
    handler: (d: Delivery<MessageShape<SubjectSchema<S>>>) => Promise<Outcome>,
  ): Promise<RunningConsumer> {
    const stream = this.streamName(opts.stream);
    await this.jsm.consumers.add(stream, {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(opts.ackWaitMs),
      max_deliver: opts.maxDeliver,
      filter_subject: this.subject(opts.filterSubject ?? subject),
    });
    const consumer = await this.js.consumers.get(stream, opts.durable);
    const schema: DescMessage = subjects[subject];
    const concurrency = opts.concurrency ?? 1;
    const running = new Set<Promise<void>>();
    let stopped = false;
    let wake: () => void = () => undefined;
    const stopping = new Promise<null>((resolve) => (wake = () => resolve(null)));

    const handle = async (m: JsMsg) => {
      const deliveryCount = m.info.deliveryCount;
      const delivery: Delivery<MessageShape<SubjectSchema<S>>> = {
        data: fromBinary(schema, m.data) as MessageShape<SubjectSchema<S>>,
        subject: m.subject,
        msgId: m.headers?.get('Nats-Msg-Id') || `${stream}:${m.seq}`,
        deliveryCount,
        maxDeliver: opts.maxDeliver,
        lastAttempt: deliveryCount >= opts.maxDeliver,
        working: () => m.working(),
      };
      // Keep the delivery alive while the handler works, at a third of the ack wait.
      const keepAlive = setInterval(() => m.working(), Math.max(250, Math.floor(opts.ackWaitMs / 3)));
      const log = this.log.child({ subject: m.subject, seq: m.seq, delivery: deliveryCount });
      const endTimer = this.metrics?.natsHandlerSeconds.startTimer({ subject });
      let result = 'retry';
      // The message's last delivery failed: the dead-letter handler, then the message ends. A handler
      // that throws is logged, not thrown: the consumer's loop goes on with the next message.
      const deadLetter = async (err: unknown) => {
        try {
          await opts.onDeadLetter?.(delivery, err);
        } catch (e) {
          result = 'dead_letter_failed';
          log.error({ err: e }, 'dead-letter handler failed');
        }
        terminate(m);
      };
      try {
        let outcome: Outcome;
        try {
          outcome = await inSpan(`consume ${subject}`, extractTrace(headerCarrier(m.headers)), () => handler(delivery));
        } catch (e) {
          log.warn({ err: e }, 'handler failed');
          if (delivery.lastAttempt) {
            result = 'dead_letter';
            await deadLetter(e);
            return;
          }
          outcome = retry(backoffMs(deliveryCount));
        }
        result = outcome.kind === 'retry' && delivery.lastAttempt ? 'dead_letter' : outcome.kind;
        if (outcome.kind === 'ack') m.ack();
        else if (outcome.kind === 'drop') {
          log.warn({ reason: outcome.reason }, 'message dropped');
          terminate(m);
        } else if (delivery.lastAttempt) await deadLetter(new Error('retries exhausted'));
        else m.nak(outcome.delayMs);
      } finally {
        clearInterval(keepAlive);
        endTimer?.({ outcome: result });
      }
    };

    const loop = async () => {
      while (!stopped) {
        while (running.size >= concurrency && !stopped) await Promise.race(running);
        if (stopped) break;
        if (this.nc.isClosed() || this.nc.isDraining()) break;
        let m: JsMsg | null = null;
        try {
          // A long pull: an idle consumer asks the server twice a minute, not every second
          // (the message arrives as soon as there is one); stop() does not wait for it.
          const pull = consumer.next({ expires: PULL_EXPIRES_MS });
          m = await Promise.race([pull, stopping]);
          if (stopped) {
            // A message the abandoned pull still brings goes back at once, to another consumer.
            void pull.then((late) => late?.nak()).catch(() => undefined);
            if (m) m.nak();
            break;
          }
        } catch (e) {
          if (stopped || this.nc.isClosed() || this.nc.isDraining()) break;
          this.log.warn({ err: e }, 'pull failed');
          await new Promise((r) => setTimeout(r, 500));
        }
        if (!m) continue;
        if (stopped) {
          m.nak();
          break;
        }
        const p = handle(m).finally(() => running.delete(p));
        running.add(p);
      }
    };
    const loopDone = loop();
    return {
      inFlight: () => running.size,
      stop: async () => {
        stopped = true;
        wake();
        await loopDone;
        await Promise.allSettled([...running]);
      },
    };
  }

  /** How many messages of a durable consumer wait to be delivered, and how many are being worked on. */
  async queueDepth(spec: StreamSpec, durable: string): Promise<{ pending: number; inProgress: number }> {
    try {
      const info = await this.jsm.consumers.info(this.streamName(spec), durable);
      return { pending: info.num_pending, inProgress: info.num_ack_pending };
    } catch (e) {
      // No consumer yet (no worker has ever started): everything in the stream is waiting.
      if (!String(e).includes('consumer not found')) throw e;
      const s = await this.jsm.streams.info(this.streamName(spec));
      return { pending: s.state.messages, inProgress: 0 };
    }
  }

  /**
   * Core NATS (fire and forget): publishes one message of a subject declared in `coreSubjects`
   * (the job's status, a cancel, revoked sessions). Nothing keeps it: only subscribers connected
   * now hear it.
   */
  publishCore<K extends CoreSubject>(kind: K, message: MessageInitShape<CoreSchema<K>>): void {
    const spec: CoreSubjectSpec = coreSubjects[kind];
    const m = create(spec.schema, message as never);
    // Job kinds are addressed by job (`jobs.<id>.status`); sessions.revoked has one subject.
    const jobId = (m as { jobId?: string }).jobId ?? '';
    this.nc.publish(this.subject(spec.subject(jobId)), toBinary(spec.schema, m));
  }

  /**
   * Every message of a `coreSubjects` kind (all jobs, all sessions), decoded; a message that does
   * not decode (or that the handler throws on) is logged and skipped.
   */
  subscribeCore<K extends CoreSubject>(kind: K, onMessage: (m: MessageShape<CoreSchema<K>>) => void): Subscription {
    const spec: CoreSubjectSpec = coreSubjects[kind];
    return this.nc.subscribe(this.subject(spec.pattern), {
      callback: (err, msg) => {
        if (err) return;
        try {
          onMessage(fromBinary(spec.schema, msg.data) as MessageShape<CoreSchema<K>>);
        } catch (e) {
          this.log.warn({ err: e, kind }, 'bad core message');
        }
      },
    });
  }

  /** Shorthand for `subscribeCore('jobStatus', ...)`: each gateway replica's feed for its sockets. */
  subscribeJobStatus(onStatus: (m: MessageShape<CoreSchema<'jobStatus'>>) => void): Subscription {
    return this.subscribeCore('jobStatus', onStatus);
  }

  /** Shorthand for `subscribeCore('jobCancel', ...)`: each render worker stops the jobs it runs. */
  subscribeJobCancel(onCancel: (m: MessageShape<CoreSchema<'jobCancel'>>) => void): Subscription {
    return this.subscribeCore('jobCancel', onCancel);
  }

  /**
   * Every message on `pattern` (e.g. 'events.billing.>') as core NATS delivers it: each
   * subscriber gets each message, the JetStream stream keeps them besides. For caches that must
   * hear every fact at once on every replica; the subject is given without the prefix.
   */
  subscribeFacts(pattern: string, onFact: (subject: string, data: Uint8Array) => void): Subscription {
    return this.nc.subscribe(this.subject(pattern), {
      callback: (err, msg) => {
        if (!err) onFact(msg.subject.slice(this.prefix.length), msg.data);
      },
    });
  }

  /** Waits until the server has seen everything published so far (and subscriptions are in place). */
  async flush(): Promise<void> {
    await this.nc.flush();
  }

  /** Round trip to the server; the health check of the bus. */
  async ping(): Promise<void> {
    if (this.nc.isClosed()) throw new Error('connection closed');
    await this.nc.flush();
  }

  /** Flushes and closes; subscriptions end. */
  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

function headerCarrier(h?: MsgHdrs): Record<string, string> {
  const out: Record<string, string> = {};
  if (h) for (const k of h.keys()) out[k] = h.get(k);
  return out;
}

/** How long one pull of a durable consumer waits for a message before asking again. */
const PULL_EXPIRES_MS = 30_000;

/** 1 s, 2 s, 4 s ... capped at 30 s. */
/**
 * Ends a message's deliveries. A plain +TERM: servers before 2.10.4 do not parse a reason after it
 * and would treat the message as unacknowledged (redelivering it until max deliver); the reason
 * goes to our log instead.
 */
const terminate = (m: JsMsg) => m.term();

export const backoffMs = (deliveryCount: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));
