import { baseSchema, env, loadConfig, mailSchema, z } from '@reelsmith/kit';

/** Mail (SMTP_URL, MAIL_FROM): receipts. */
export const configSchema = baseSchema.extend(mailSchema.shape).extend({
  /** Set: cards go through Stripe (PaymentIntents and Billing); unset: the embedded sandbox. */
  STRIPE_SECRET_KEY: z.string().startsWith('sk_', 'expected a Stripe secret key (sk_...)').optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().startsWith('pk_', 'expected a Stripe publishable key (pk_...)').optional(),
  /** The signing secret of the webhook endpoint (whsec_...). */
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Where the Stripe client connects (tests point it at a local stand-in): https://api.stripe.com. */
  STRIPE_API_URL: z.url().optional(),
  /** Set with the secret: PayPal Orders v2; unset: the sandbox's PayPal step. */
  PAYPAL_CLIENT_ID: z.string().optional(),
  PAYPAL_CLIENT_SECRET: z.string().optional(),
  PAYPAL_ENV: z.enum(['sandbox', 'live']).default('sandbox'),
  /** The PayPal webhook's id, needed to verify its signatures. */
  PAYPAL_WEBHOOK_ID: z.string().optional(),
  /** Where PayPal calls go instead of api-m.(sandbox.)paypal.com (tests point it at a local stand-in). */
  PAYPAL_API_URL: z.url().optional(),
  /** How often the sandbox renewal scheduler looks for due subscriptions. */
  RENEWAL_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  PUBLIC_URL: env.url.default('http://localhost:8080'),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => {
  const c = loadConfig(configSchema, process.env);
  if (c.STRIPE_SECRET_KEY && !c.STRIPE_PUBLISHABLE_KEY) {
    process.stderr.write('Invalid configuration:\n  - STRIPE_PUBLISHABLE_KEY: required when STRIPE_SECRET_KEY is set\n');
    process.exit(78);
  }
  return c;
};

/** What `npm run stripe:sync` needs. */
export const loadSyncConfig = () => loadConfig(configSchema.pick({ STRIPE_SECRET_KEY: true, STRIPE_API_URL: true }), process.env);
