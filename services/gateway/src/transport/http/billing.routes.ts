import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';
import { paymentRecord, toPaymentRecord } from './payments.schemas.js';
import { catalogue, errors, estimateRequest, user } from './schemas.js';
import { userBody } from './user.view.js';

const dollars = (cents: bigint) => Number(cents) / 100;

/** Billing routes: the cost estimate shown to users (the same formula as the charge) and the catalogue. */
export const billingRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  let catalogueCache: { at: number; body: Promise<z.infer<typeof catalogue>> } | undefined;
  app.post(
    '/billing/estimate',
    {
      schema: {
        summary: 'What a reel would cost, in credits (billing computes the charge with the same formula)',
        body: estimateRequest,
        response: { 200: z.object({ credits: z.number().int() }).meta({ id: 'Estimate' }), ...errors(400) },
      },
    },
    async (req) => {
      const res = await peers.billing.estimate(
        {
          pacingPreset: req.body.pacing_preset,
          hasMusic: req.body.has_music,
          totalSourceBytes: BigInt(req.body.total_source_bytes),
          outputSeconds: req.body.output_seconds,
        },
        { requestId: req.id },
      );
      return { credits: Number(res.credits) };
    },
  );

  app.get('/billing/catalogue', { schema: { summary: 'Plans and credit packs', response: { 200: catalogue } } }, async (req, reply) => {
    // The catalogue changes only when prices are synced: one billing call a minute per replica,
    // shared by concurrent requests, instead of one per page view.
    const now = Date.now();
    if (!catalogueCache || now - catalogueCache.at > CATALOGUE_TTL_MS) {
      const pending = catalogueOf(peers, req.id);
      catalogueCache = { at: now, body: pending };
      pending.catch(() => {
        if (catalogueCache?.body === pending) catalogueCache = undefined;
      });
    }
    const body = await catalogueCache.body;
    // Only a catalogue is cached by browsers: a failure must not be (a 500 kept for 5 minutes).
    void reply.header('cache-control', 'public, max-age=300');
    return body;
  });

  app.get(
    '/billing/history',
    {
      config: { access: 'user' },
      schema: {
        summary: "The user's payments, newest first: date, item, amount in dollars, credits, provider, status",
        response: { 200: z.object({ payments: z.array(paymentRecord) }).meta({ id: 'BillingHistory' }), ...errors(401) },
      },
    },
    async (req) => {
      const r = await peers.billing.history({ userId: callerOf(req).id }, { requestId: req.id });
      return { payments: r.payments.map(toPaymentRecord) };
    },
  );

  app.post(
    '/billing/subscription/cancel',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Cancel the plan at the end of the period: it stays active until the next billing date',
        response: { 200: z.object({ user }), ...errors(401, 409) },
      },
    },
    async (req) => {
      const c = callerOf(req);
      await peers.billing.cancelSubscription({ userId: c.id }, { requestId: req.id });
      app.accountChanged(c.id);
      const { user: u } = await peers.identity.getUser({ userId: c.id }, { requestId: req.id });
      return { user: await userBody(peers, u!, req.id) };
    },
  );
};

const CATALOGUE_TTL_MS = 60_000;

async function catalogueOf(peers: Peers, requestId: string): Promise<z.infer<typeof catalogue>> {
  const c = await peers.billing.getCatalogue({}, { requestId });
  return {
    plans: c.plans.map((p) => ({
      id: p.id,
      name: p.name,
      monthly_price: dollars(p.monthlyPriceCents),
      yearly_price: dollars(p.yearlyPriceCents),
      monthly_credits: Number(p.monthlyCredits),
      yearly_credits: Number(p.yearlyCredits),
      storage: { monthly: p.storageMonthly, yearly: p.storageYearly },
      export_quality: p.exportQuality,
      approx_video: { monthly: p.approxVideoMonthly, yearly: p.approxVideoYearly },
      features: p.features,
      most_popular: p.mostPopular,
    })),
    packs: c.packs.map((p) => ({ id: p.id, credits: Number(p.credits), price: dollars(p.priceCents), best_value: p.bestValue })),
  };
}
