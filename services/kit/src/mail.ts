import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { Logger } from './logger.js';

/** The mail settings of a service that sends mail (the messages themselves are the service's). */
export const mailSchema = z.object({
  /** smtp://user:pass@host:port; unset writes every message to DATA_DIR/mail as an .eml file. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Reelsmith <no-reply@reelsmith.local>'),
});
export type MailConfig = z.infer<typeof mailSchema>;

/** One message; the sender is the transport's `from`. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: { name: string; address: string };
}

/** How a sent message is logged: `<what> written` / `<what> sent` with these fields. */
export interface MailLog {
  /** Default 'mail'. */
  what?: string;
  /** Default `{ to, subject }`. Never put a token or a code here. */
  fields?: Record<string, unknown>;
}

export interface MailTransport {
  send(message: MailMessage, log?: MailLog): Promise<void>;
}

export interface MailTransportOptions {
  /** Set: messages go over SMTP. Unset: each one is written as an .eml file under `dir`. */
  smtpUrl?: string;
  from: string;
  dir: string;
  log: Logger;
}

/** A unique, time-ordered file name for one written message. */
const emlName = () => `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`;

/**
 * SMTP when `smtpUrl` is set. Otherwise every message is rendered by nodemailer exactly as it would
 * go over the wire and written (mode 0600) as an .eml file under `dir`, the embedded outbox; the
 * file's path is logged, never its content.
 */
export function createMailTransport(opts: MailTransportOptions): MailTransport {
  const transport = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message, log = {}) {
      const info = (await transport.sendMail({ from: opts.from, ...message })) as { message?: unknown };
      const what = log.what ?? 'mail';
      const fields = log.fields ?? { to: message.to, subject: message.subject };
      if (!opts.smtpUrl && Buffer.isBuffer(info.message)) {
        fs.mkdirSync(opts.dir, { recursive: true });
        const file = path.join(opts.dir, emlName());
        fs.writeFileSync(file, info.message, { mode: 0o600 });
        opts.log.info({ ...fields, mail_file: file }, `${what} written`);
      } else opts.log.info(fields, `${what} sent`);
    },
  };
}

/** The transport a service's configuration asks for: SMTP_URL, else .eml files in DATA_DIR/mail. */
export const mailTransportFor = (config: MailConfig & { DATA_DIR: string }, log: Logger): MailTransport =>
  createMailTransport({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dir: path.join(config.DATA_DIR, 'mail'), log });
