import crypto from 'node:crypto';
import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import type { RateLimiter } from './identity.service.js';
import { normalizeEmail } from './rules.js';

export const CONTACT_TOPICS = ['General question', 'Technical support', 'Billing', 'Partnership', 'Feedback'] as const;

export interface ContactRecord {
  id: string;
  name: string;
  email: string;
  topic: string;
  message: string;
  clientIp: string;
  createdAt: Date;
}

export interface ContactRepository {
  insert(m: ContactRecord): Promise<void>;
  list(limit: number, offset: number): Promise<{ messages: ContactRecord[]; total: number }>;
}

export interface ContactMailer {
  /** Mails the message to the inbox, replying to the sender. */
  sendContact(m: ContactRecord): Promise<void>;
}

/** Per sender address: 3 messages an hour; per client address: 10 an hour. */
export const CONTACT_LIMITS = { perEmail: { limit: 3, windowMs: 3600_000 }, perIp: { limit: 10, windowMs: 3600_000 } };

// Printable text: no control characters but newlines and tabs in the message.
/* eslint-disable no-control-regex -- these patterns exist to find control characters */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROL_LINE = /[\u0000-\u001f\u007f]/;
/* eslint-enable no-control-regex */

const invalid = (message: string, reason: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, message, reason);

/** The contact form: checked, rate limited, stored, then mailed. */
export class ContactService {
  constructor(
    private readonly repo: ContactRepository,
    private readonly mailer: ContactMailer,
    private readonly limiter: RateLimiter,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async submit(input: { name: string; email: string; topic: string; message: string; clientIp: string; honeypot: string }): Promise<void> {
    const name = input.name.trim();
    const message = input.message.trim();
    if (!name || name.length > 100 || CONTROL_LINE.test(name))
      throw invalid('Please enter your name (up to 100 characters).', 'invalid_name');
    const email = normalizeEmail(input.email);
    if (!(CONTACT_TOPICS as readonly string[]).includes(input.topic)) throw invalid('Please choose a topic.', 'invalid_topic');
    if (message.length < 10 || message.length > 5000 || CONTROL.test(message))
      throw invalid('Please write a message of 10 to 5000 characters.', 'invalid_message');
    // A bot filled the hidden field: answer as if sent, keep nothing.
    if (input.honeypot.trim()) {
      this.log.info({ client_ip: input.clientIp }, 'contact form honeypot filled; dropped');
      return;
    }
    const byEmail = await this.limiter.hit(`contact:email:${email}`, CONTACT_LIMITS.perEmail.limit, CONTACT_LIMITS.perEmail.windowMs);
    const byIp = await this.limiter.hit(`contact:ip:${input.clientIp}`, CONTACT_LIMITS.perIp.limit, CONTACT_LIMITS.perIp.windowMs);
    if (!byEmail || !byIp)
      throw new DomainError(
        ErrorCode.RESOURCE_EXHAUSTED,
        'You have sent several messages already. Please try again in an hour.',
        'rate_limited',
      );
    const record: ContactRecord = {
      id: crypto.randomUUID(),
      name,
      email,
      topic: input.topic,
      message,
      clientIp: input.clientIp,
      createdAt: this.clock(),
    };
    await this.repo.insert(record);
    try {
      await this.mailer.sendContact(record);
    } catch (e) {
      // Stored already: the admin inbox shows it even when mail is down.
      this.log.error({ err: e, contact_id: record.id }, 'contact message stored but not mailed');
    }
  }

  list = (limit: number, offset: number) => this.repo.list(Math.min(Math.max(limit || 50, 1), 200), Math.max(offset, 0));
}
