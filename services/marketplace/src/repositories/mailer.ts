import type { MailTransport } from '@reelsmith/kit';
import type { OfferMailer } from '../domain/marketplace.service.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Offer mail through marketplace's mail transport (SMTP, or .eml files in DATA_DIR/mail). */
export function createMailer(mail: MailTransport, publicUrl: string): OfferMailer {
  return {
    offerMade: (to, filename, offer) => {
      const link = publicUrl.replace(/\/$/, '');
      const subject = 'You have a new offer for your footage';
      return mail.send(
        {
          to,
          subject,
          text: `Good news! We would like to buy your clip "${filename}" for ${offer}.\n\nOpen Reelsmith, then Settings > Review Offers to accept or decline it:\n${link}\n`,
          html: `<p>Good news! We would like to buy your clip <strong>${escapeHtml(filename)}</strong> for <strong>${escapeHtml(offer)}</strong>.</p><p>Open <a href="${link}">Reelsmith</a>, then Settings &gt; Review Offers to accept or decline it.</p>`,
        },
        { fields: { subject } },
      );
    },
  };
}
