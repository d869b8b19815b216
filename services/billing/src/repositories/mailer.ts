import type { MailTransport } from '@reelsmith/kit';
import type { PaymentRecord, Receipts } from '../domain/payments.ports.js';

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

/** Receipts through billing's mail transport (SMTP, or .eml files in DATA_DIR/mail). */
export function createReceipts(mail: MailTransport, publicUrl: string): Receipts {
  return {
    send: (p) => mail.send(receiptMessage(p, publicUrl), { what: 'receipt' }),
  };
}
