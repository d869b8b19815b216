import type { Logger } from '@reelsmith/kit';
import type { Config } from '../../config.js';
import type { PaymentProvider, Providers } from '../../domain/payments.ports.js';
import { SandboxProvider } from './sandbox.js';
import { PaypalProvider } from './paypal.js';
import { StripeProvider, stripeClient } from './stripe.js';

/** Cards: stripe when STRIPE_SECRET_KEY is set; PayPal: paypal when its client is set; else the sandbox. */
export function createProviders(c: Config, log: Logger, clock: () => Date = () => new Date()): Providers {
  const sandbox = new SandboxProvider(clock);
  const card: PaymentProvider = c.STRIPE_SECRET_KEY
    ? new StripeProvider(stripeClient(c.STRIPE_SECRET_KEY, c.STRIPE_API_URL), c.STRIPE_WEBHOOK_SECRET)
    : sandbox;
  const paypal: PaymentProvider =
    c.PAYPAL_CLIENT_ID && c.PAYPAL_CLIENT_SECRET
      ? new PaypalProvider({
          clientId: c.PAYPAL_CLIENT_ID,
          clientSecret: c.PAYPAL_CLIENT_SECRET,
          env: c.PAYPAL_ENV,
          webhookId: c.PAYPAL_WEBHOOK_ID,
          publicUrl: c.PUBLIC_URL,
          apiUrl: c.PAYPAL_API_URL,
        })
      : sandbox;
  const all = new Map<string, PaymentProvider>([[sandbox.name, sandbox]]);
  all.set(card.name, card);
  all.set(paypal.name, paypal);
  if (c.STRIPE_SECRET_KEY && !c.STRIPE_WEBHOOK_SECRET) log.warn('STRIPE_WEBHOOK_SECRET is not set: Stripe webhooks will be refused');
  if (c.PAYPAL_CLIENT_ID && !c.PAYPAL_WEBHOOK_ID) log.warn('PAYPAL_WEBHOOK_ID is not set: PayPal webhooks will be refused');
  log.info({ card: card.name, paypal: paypal.name }, 'payment providers');
  return { card, paypal, byName: (n) => all.get(n), publishableKey: c.STRIPE_PUBLISHABLE_KEY ?? '' };
}
