import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { createLogger, createMailTransport, mailSchema, mailTransportFor, parseConfig, z, type Logger } from '../../src';
import { startSmtpStandIn, tempDir, type SmtpStandIn } from '../../src/testing';

/** Quoted-printable soft breaks and escapes, and RFC 2047 Q-encoded words, decoded to text. */
const decodeQp = (s: string) =>
  Buffer.from(
    s
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .split('')
      .map((c) => c.charCodeAt(0)),
  ).toString('utf8');
const decodeWords = (s: string) => s.replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, w: string) => decodeQp(w.replace(/_/g, ' ')));
const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw)?.[1];

/** A logger whose lines the test reads back. */
function capturedLogger(): { log: Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ service: 'mail-test', destination });
  return {
    log,
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const FROM = 'Reelsmith <no-reply@reelsmith.local>';
const message = {
  to: 'zoe@example.com',
  replyTo: { name: 'Zoë Ünal', address: 'zoe.unal@example.com' },
  subject: 'Reçu : 5 € pour Zoë',
  text: `Merci, Zoë ! Montant : 5,00 € — ${'une ligne longue '.repeat(8)}\nCode 123456\n`,
  html: '<p>Merci, Zoë !</p>',
};

describe('mail transport: the embedded outbox (.eml files)', () => {
  const data = tempDir('mail');
  afterAll(() => data.remove());

  it('writes each message as a private .eml file with encoded headers and body, and logs its path, not its content', async () => {
    const dir = path.join(data.dir, 'outbox');
    const { log, lines } = capturedLogger();
    const mail = createMailTransport({ from: FROM, dir, log });
    await mail.send(message);
    await mail.send({ to: 'a@example.com', subject: 'Second', text: 'plain ascii\n' }, { what: 'receipt', fields: { payment: 'p1' } });

    const files = fs.readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    for (const f of files) {
      expect(f).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{8}\.eml$/);
      expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    }
    const first = files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).find((raw) => raw.includes('zoe@example.com'))!;
    expect(header(first, 'From')).toBe(FROM);
    expect(header(first, 'To')).toBe('zoe@example.com');
    // Non-ASCII headers are RFC 2047 encoded words; they decode to exactly what was sent.
    expect(header(first, 'Subject')).toMatch(/^=\?UTF-8\?Q\?/);
    expect(decodeWords(header(first, 'Subject')!)).toBe(message.subject);
    expect(decodeWords(header(first, 'Reply-To')!)).toBe('Zoë Ünal <zoe.unal@example.com>');
    expect(header(first, 'MIME-Version')).toBe('1.0');
    expect(first).toMatch(/^Content-Type: multipart\/alternative;/m);
    // The text part is UTF-8 in quoted-printable, lines at most 76 characters, and decodes back.
    const textPart =
      /Content-Type: text\/plain; charset=utf-8\r?\nContent-Transfer-Encoding: quoted-printable\r?\n\r?\n([\s\S]*?)\r?\n----/.exec(first);
    expect(textPart).not.toBeNull();
    const body = textPart![1]!.replace(/\r\n/g, '\n');
    expect(body.split('\n').every((l) => l.length <= 76)).toBe(true);
    expect(decodeQp(body)).toBe(message.text);
    expect(first).toContain('<p>Merci, Zo');

    const logged = lines();
    expect(logged.map((l) => l.msg)).toEqual(['mail written', 'receipt written']);
    expect(logged[0]).toMatchObject({ to: 'zoe@example.com', subject: message.subject });
    expect(logged[1]).toMatchObject({ payment: 'p1' });
    expect(logged[1]).not.toHaveProperty('to');
    expect(logged.map((l) => l.mail_file).sort()).toEqual(files.map((f) => path.join(dir, f)));
    expect(JSON.stringify(logged)).not.toContain('123456');
  });

  it("takes SMTP_URL and MAIL_FROM from a service's configuration and writes under DATA_DIR/mail without them", async () => {
    const config = parseConfig(mailSchema.extend({ DATA_DIR: z.string() }), { DATA_DIR: data.dir });
    expect(config).toEqual({ DATA_DIR: data.dir, MAIL_FROM: FROM });
    await mailTransportFor(config, capturedLogger().log).send({ to: 'b@example.com', subject: 'Hi', text: 'hello\n' });
    const [file] = fs.readdirSync(path.join(data.dir, 'mail'));
    expect(header(fs.readFileSync(path.join(data.dir, 'mail', file!), 'utf8'), 'To')).toBe('b@example.com');
    expect(() => parseConfig(mailSchema, { SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL: expected smtp:\/\/ or smtps:\/\//);
  });
});

describe('mail transport: SMTP', () => {
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn();
  });
  afterAll(() => smtp.close());

  it('delivers over SMTP with the envelope and headers of the message, and writes no file', async () => {
    const data = tempDir('mail-smtp');
    try {
      const { log, lines } = capturedLogger();
      const mail = createMailTransport({ smtpUrl: smtp.url, from: FROM, dir: data.dir, log });
      await mail.send(message);
      expect(smtp.mails).toHaveLength(1);
      const [m] = smtp.mails;
      expect(m!.from).toBe('no-reply@reelsmith.local');
      expect(m!.to).toBe('zoe@example.com');
      expect(header(m!.raw, 'From')?.trim()).toBe(FROM);
      expect(decodeWords(header(m!.raw, 'Subject')!.trim())).toBe(message.subject);
      expect(decodeQp(m!.raw.replace(/\r\n/g, '\n'))).toContain(message.text);
      expect(fs.readdirSync(data.dir)).toEqual([]);
      expect(lines().map((l) => [l.msg, l.to, l.mail_file])).toEqual([['mail sent', 'zoe@example.com', undefined]]);
    } finally {
      data.remove();
    }
  });

  it('fails the send when the SMTP server refuses the message', async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onRcptTo: (_addr, _session, cb) => cb(new Error('mailbox unavailable')),
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    try {
      const p = (refusing.server.address() as AddressInfo).port;
      const mail = createMailTransport({ smtpUrl: `smtp://127.0.0.1:${p}`, from: FROM, dir: '/nonexistent', log: capturedLogger().log });
      await expect(mail.send({ to: 'c@example.com', subject: 'x', text: 'y\n' })).rejects.toThrow(/mailbox unavailable/);
    } finally {
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });
});
