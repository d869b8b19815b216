import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '@reelsmith/kit';
import type { OfferMailer } from '../domain/marketplace.service.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * SMTP when SMTP_URL is set (as identity). Otherwise each message is written as an .eml file under
 * DATA_DIR/mail and its path logged.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; mailDir: string; publicUrl: string; log: Logger }): OfferMailer {
  const transport = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    offerMade: async (to, filename, offer) => {
      const link = opts.publicUrl.replace(/\/$/, '');
      const m = {
        from: opts.from,
        to,
        subject: 'You have a new offer for your footage',
        text: `Good news! We would like to buy your clip "${filename}" for ${offer}.\n\nOpen Reelsmith, then Settings > Review Offers to accept or decline it:\n${link}\n`,
        html: `<p>Good news! We would like to buy your clip <strong>${escapeHtml(filename)}</strong> for <strong>${escapeHtml(offer)}</strong>.</p><p>Open <a href="${link}">Reelsmith</a>, then Settings &gt; Review Offers to accept or decline it.</p>`,
      };
      const info = (await transport.sendMail(m)) as { message?: Buffer };
      if (!opts.smtpUrl && info.message) {
        fs.mkdirSync(opts.mailDir, { recursive: true });
        const file = path.join(
          opts.mailDir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`,
        );
        fs.writeFileSync(file, info.message, { mode: 0o600 });
        opts.log.info({ subject: m.subject, mail_file: file }, 'mail written');
      } else opts.log.info({ subject: m.subject }, 'mail sent');
    },
  };
}
