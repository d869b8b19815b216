import { Bus, OutboxRelay, enqueueEvent, migrate, openDatabase, outboxMigration, type Database } from '../../src/index';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, type TestDatabase } from '../../src/testing';

/** The relay publishes when kicked; its own timer is only a slow backstop (an idle service stays idle). */
describe('the outbox relay', () => {
  let pg: TestDatabase;
  let db: Database;
  let bus: Bus;
  beforeAll(async () => {
    pg = await createTestDatabase('outbox');
    db = await openDatabase({ url: pg.url, pgliteDir: '' });
    await migrate(db, [outboxMigration()]);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'outbox-test', log: quietLogger(), prefix: natsPrefix() });
    await bus.ensureDeclaredStreams();
  });
  afterAll(async () => {
    await bus.close();
    await db.close();
    await pg.drop();
  });

  const record = (id: string) =>
    enqueueEvent(db.orm, 'events.identity.user_verified', { userId: id, email: `${id}@example.com` }, `verified.${id}`);
  const published = async () =>
    (await db.query<{ msg_id: string }>('select msg_id from outbox where published_at is not null order by id')).map((r) => r.msg_id);

  it('a kick during a run is not lost: the run looks again before it ends', async () => {
    const relay = new OutboxRelay(db.orm, bus, quietLogger(), 3_600_000);
    await record('a');
    // While the relay publishes a, b is committed and the relay kicked (as a service does after commit).
    const publishRaw = bus.publishRaw.bind(bus);
    let kicked: Promise<void> | undefined;
    bus.publishRaw = async (subject, data, msgId) => {
      const r = await publishRaw(subject, data, msgId);
      if (msgId === 'verified.a') kicked = record('b').then(() => relay.flush());
      return r;
    };
    await relay.flush();
    await kicked;
    bus.publishRaw = publishRaw;
    expect(await published()).toEqual(['verified.a', 'verified.b']);
  });

  it('a failed publish is retried after a second, not at the next backstop tick', async () => {
    const relay = new OutboxRelay(db.orm, bus, quietLogger(), 3_600_000);
    relay.start();
    const publishRaw = bus.publishRaw.bind(bus);
    bus.publishRaw = async () => {
      throw new Error('NATS away');
    };
    await record('c');
    await relay.flush();
    expect(await published()).not.toContain('verified.c');
    bus.publishRaw = publishRaw;
    const deadline = Date.now() + 3000;
    while (!(await published()).includes('verified.c') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await published()).toContain('verified.c');
    await relay.stop();
  });
});
