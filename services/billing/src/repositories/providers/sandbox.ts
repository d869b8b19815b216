import crypto from 'node:crypto';
import { DECLINE_MESSAGES, TEST_CARDS, sandboxCardOutcome, type PricedItem } from '../../domain/payments.js';
import type {
  ConfirmDetails,
  CreatedPayment,
  Outcome,
  PaymentProvider,
  PaymentRecord,
  SubscriptionRecord,
} from '../../domain/payments.ports.js';

/**
 * The embedded test-mode provider ("Test mode: no real money moves"): no network, no money. Cards
 * behave like the card networks' published test numbers; the PayPal step approves or cancels.
 * A subscription keeps a token of the card it was paid with, which its renewals are charged to.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  constructor(private readonly clock: () => Date = () => new Date()) {}

  async create(input: { item: PricedItem }): Promise<CreatedPayment> {
    void input;
    const id = `sbx_pi_${crypto.randomUUID().replace(/-/g, '')}`;
    return { id, clientSecret: `${id}_secret_${crypto.randomBytes(12).toString('hex')}` };
  }

  async confirm(p: PaymentRecord, d: ConfirmDetails): Promise<Outcome> {
    if (p.method === 'paypal') {
      if (d.paypalAction === 'approve') return { status: 'succeeded', ref: 'sandbox_paypal' };
      if (d.paypalAction === 'cancel') return { status: 'failed', message: DECLINE_MESSAGES.paypalCanceled };
      return { status: 'pending' };
    }
    const verdict = sandboxCardOutcome(d.testCard, d.testExpiry, d.testCvc, this.clock());
    if (!verdict.ok) return { status: 'failed', message: verdict.message };
    const digits = d.testCard.replace(/[\s-]/g, '');
    return { status: 'succeeded', ref: digits === TEST_CARDS.renewalsFail ? 'sandbox_card_renewals_fail' : 'sandbox_card_ok' };
  }

  async renew(s: SubscriptionRecord): Promise<Outcome> {
    if (s.providerRef === 'sandbox_card_ok' || s.providerRef === 'sandbox_paypal') return { status: 'succeeded', ref: s.providerRef };
    return { status: 'failed', message: DECLINE_MESSAGES.declined };
  }
}
