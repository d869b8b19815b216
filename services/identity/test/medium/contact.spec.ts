import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMailTransport, migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { ContactService } from '../../src/domain/contact.service';
import { DrizzleContactRepository, contactMailer } from '../../src/repositories/contact.repository';
import { DbRateLimiter } from '../../src/repositories/rate-limiter';

/** The contact form on real PostgreSQL, with mail written to the embedded outbox (.eml files). */
describe('contact messages', () => {
  let pg: TestDatabase;
  let db: Database;
  let mailDir: string;
  let svc: ContactService;

  beforeAll(async () => {
    pg = await createTestDatabase('contact');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, readMigrations(path.join(__dirname, '..', '..', 'migrations')));
    mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-mail-'));
    svc = new ContactService(
      new DrizzleContactRepository(db.orm),
      contactMailer(
        createMailTransport({ from: 'Reelsmith <no-reply@reelsmith.local>', dir: mailDir, log: quietLogger() }),
        'inbox@example.com',
      ),
      new DbRateLimiter(db.orm),
      quietLogger(),
    );
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
    fs.rmSync(mailDir, { recursive: true, force: true });
  });

  const form = (over: Partial<Parameters<ContactService['submit']>[0]> = {}) => ({
    name: 'Ada',
    email: 'Ada@Example.com',
    topic: 'Billing',
    message: 'How do credit packs work with a subscription?',
    clientIp: '203.0.113.7',
    honeypot: '',
    ...over,
  });

  it('stores and mails a message to the inbox, drops honeypot posts, refuses bad input and limits each address', async () => {
    await svc.submit(form());
    const mails = fs.readdirSync(mailDir);
    expect(mails).toHaveLength(1);
    const eml = fs.readFileSync(path.join(mailDir, mails[0]!), 'utf8');
    expect(eml).toMatch(/^To: inbox@example.com$/m);
    expect(eml).toMatch(/^Reply-To: Ada <ada@example.com>$/m);
    expect(eml).toContain('How do credit packs work with a subscription?');
    expect((await svc.list(10, 0)).messages.map((m) => [m.email, m.topic])).toEqual([['ada@example.com', 'Billing']]);

    await svc.submit(form({ honeypot: 'http://spam.example', email: 'bot@example.com' }));
    expect((await svc.list(10, 0)).total).toBe(1);
    expect(fs.readdirSync(mailDir)).toHaveLength(1);

    await expect(svc.submit(form({ topic: 'Other' }))).rejects.toMatchObject({ reason: 'invalid_topic' });
    await expect(svc.submit(form({ message: 'hi' }))).rejects.toMatchObject({ reason: 'invalid_message' });
    await expect(svc.submit(form({ name: 'A\u0000' }))).rejects.toMatchObject({ reason: 'invalid_name' });
    await expect(svc.submit(form({ email: 'nope' }))).rejects.toMatchObject({ reason: 'invalid_email' });

    await svc.submit(form({ message: 'A second message, with more detail.' }));
    await svc.submit(form({ message: 'A third message, with more detail.' }));
    await expect(svc.submit(form({ message: 'A fourth message in the hour.' }))).rejects.toMatchObject({ reason: 'rate_limited' });
    // Another sender from the same network is still welcome.
    await svc.submit(form({ email: 'bob@example.com', name: 'Bob' }));
    const inbox = await svc.list(2, 0);
    expect(inbox.total).toBe(4);
    expect(inbox.messages[0]!.name).toBe('Bob');
  });
});
