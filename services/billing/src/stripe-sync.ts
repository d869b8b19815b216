import { loadSyncConfig } from './config.js';
import { PLANS, type BillingCycle } from './domain/catalogue.js';
import { lookupKey, stripeClient } from './repositories/providers/stripe.js';

/**
 * `npm run stripe:sync`: makes Stripe hold one Product per plan and one recurring Price per plan and
 * cycle, found by lookup key (reelsmith_<plan>_<cycle>). Idempotent: a Price with the right amount
 * and interval is kept; a missing or different one is created and takes the lookup key over.
 */
export async function syncStripe(secretKey: string, apiUrl?: string, out: (line: string) => void = console.log) {
  const stripe = stripeClient(secretKey, apiUrl);
  const done = { created: 0, kept: 0 };
  for (const plan of PLANS) {
    const productId = `reelsmith_${plan.id.replace(/-/g, '_')}`;
    const product = await stripe.products.retrieve(productId).catch(() => null);
    if (!product) await stripe.products.create({ id: productId, name: `Reelsmith ${plan.name}` });
    for (const cycle of ['monthly', 'yearly'] as BillingCycle[]) {
      const key = lookupKey(plan.id, cycle);
      const amount = cycle === 'yearly' ? plan.yearlyPriceCents : plan.monthlyPriceCents;
      const interval = cycle === 'yearly' ? 'year' : 'month';
      const [existing] = (await stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 })).data;
      if (existing && existing.unit_amount === amount && existing.currency === 'usd' && existing.recurring?.interval === interval) {
        done.kept++;
        out(`kept    ${key} (${existing.id})`);
        continue;
      }
      const price = await stripe.prices.create({
        product: productId,
        currency: 'usd',
        unit_amount: amount,
        recurring: { interval },
        lookup_key: key,
        transfer_lookup_key: true,
        metadata: { plan: plan.id, billing_cycle: cycle },
      });
      done.created++;
      out(`created ${key} (${price.id})`);
    }
  }
  return done;
}

if (require.main === module) {
  const c = loadSyncConfig();
  const key = c.STRIPE_SECRET_KEY;
  if (!key) {
    process.stderr.write('STRIPE_SECRET_KEY is not set: nothing to sync (the sandbox needs no prices).\n');
    process.exit(78);
  }
  syncStripe(key, c.STRIPE_API_URL).then(
    (r) => console.log(`stripe:sync done: ${r.created} created, ${r.kept} kept`),
    (e: unknown) => {
      console.error(`stripe:sync failed: ${(e as Error).message}`);
      process.exit(1);
    },
  );
}
