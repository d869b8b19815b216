import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '@reelsmith/kit';
import type { PaymentRecord, Receipts } from '../domain/payments.service.js';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function receiptMessage(p: PaymentRecord, publicUrl: string) {
  const lines = [
    `Thank you for your payment.`,
    ``,
    `Item: ${p.itemName}${p.type === 'renewal' ? ' (renewal)' : ''}`,
    `Amount: ${dollars(p.amountCents)} ${p.currency.toUpperCase()}`,
    `Credits: ${p.credits.toLocaleString('en-US')}`,
    `Paid with: ${p.method === 'paypal' ? 'PayPal' : 'card'}${p.provider === 'sandbox' ? ' (test mode: no real money moved)' : ''}`,
    `Payment id: ${p.id}`,
    `Date: ${p.createdAt.toISOString().slice(0, 10)}`,
    ``,
    `Your billing history: ${publicUrl}/pricing`,
  ];
  const text = `${lines.join('\n')}\n`;
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    to: p.email,
    subject: `Your Reelsmith receipt: ${p.itemName}`,
    text,
    html: `<p>${lines.map(esc).join('<br>')}</p>`,
  };
}

/**
 * Receipts by SMTP when SMTP_URL is set, else written as .eml files under DATA_DIR/mail (the same
 * convention as identity's mail).
 */
export function createReceipts(opts: { smtpUrl?: string; from: string; mailDir: string; publicUrl: string; log: Logger }): Receipts {
  const transport = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(p) {
      const m = receiptMessage(p, opts.publicUrl);
      const info = (await transport.sendMail({ from: opts.from, ...m })) as { message?: Buffer };
      if (!opts.smtpUrl && info.message) {
        fs.mkdirSync(opts.mailDir, { recursive: true });
        const file = path.join(
          opts.mailDir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`,
        );
        fs.writeFileSync(file, info.message, { mode: 0o600 });
        opts.log.info({ to: p.email, subject: m.subject, mail_file: file }, 'receipt written');
      } else opts.log.info({ to: p.email, subject: m.subject }, 'receipt sent');
    },
  };
}
