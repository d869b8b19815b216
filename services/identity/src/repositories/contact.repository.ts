import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { desc, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { Logger, Orm } from '@reelsmith/kit';
import type { ContactMailer, ContactRecord, ContactRepository } from '../domain/contact.service.js';
import { contactMessages } from './schema.js';

export class DrizzleContactRepository implements ContactRepository {
  constructor(private readonly orm: Orm) {}
  async insert(m: ContactRecord) {
    await this.orm.insert(contactMessages).values(m);
  }
  async list(limit: number, offset: number) {
    const rows = await this.orm
      .select()
      .from(contactMessages)
      .orderBy(desc(contactMessages.createdAt), desc(contactMessages.id))
      .limit(limit)
      .offset(offset);
    const [count] = await this.orm.select({ n: sql<string>`count(*)` }).from(contactMessages);
    return { messages: rows, total: Number(count?.n ?? 0) };
  }
}

/** Mails contact messages to the inbox like identity's other mail: SMTP, or .eml files in DATA_DIR/mail (the embedded outbox). */
export function contactMailer(opts: { smtpUrl?: string; from: string; inbox: string; mailDir: string; log: Logger }): ContactMailer {
  const transport = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async sendContact(m) {
      const info = (await transport.sendMail({
        from: opts.from,
        to: opts.inbox,
        replyTo: { name: m.name, address: m.email },
        subject: `[Contact] ${m.topic}: ${m.name}`.slice(0, 200),
        text: `From: ${m.name} <${m.email}>\nTopic: ${m.topic}\nReceived: ${m.createdAt.toISOString()}\n\n${m.message}\n`,
      })) as { message?: Buffer };
      if (!opts.smtpUrl && info.message) {
        fs.mkdirSync(opts.mailDir, { recursive: true });
        const file = path.join(
          opts.mailDir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`,
        );
        fs.writeFileSync(file, info.message, { mode: 0o600 });
        opts.log.info({ contact_id: m.id, mail_file: file }, 'contact mail written');
      } else opts.log.info({ contact_id: m.id }, 'contact mail sent');
    },
  };
}
