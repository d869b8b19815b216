import { desc, sql } from 'drizzle-orm';
import type { MailTransport, Orm } from '@reelsmith/kit';
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

/** Mails contact messages to the inbox through identity's mail transport (SMTP, or .eml files in DATA_DIR/mail). */
export function contactMailer(mail: MailTransport, inbox: string): ContactMailer {
  return {
    sendContact: (m) =>
      mail.send(
        {
          to: inbox,
          replyTo: { name: m.name, address: m.email },
          subject: `[Contact] ${m.topic}: ${m.name}`.slice(0, 200),
          text: `From: ${m.name} <${m.email}>\nTopic: ${m.topic}\nReceived: ${m.createdAt.toISOString()}\n\n${m.message}\n`,
        },
        { what: 'contact mail', fields: { contact_id: m.id } },
      ),
  };
}
