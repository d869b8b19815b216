import { billing } from '@reelsmith/proto';
import type { FastifyPluginAsync } from 'fastify';
import type { Peers } from '../../repositories/clients.js';

const PACING = { relaxed: billing.Pacing.RELAXED, standard: billing.Pacing.STANDARD, 'high-energy': billing.Pacing.HIGH_ENERGY } as const;
type PacingName = keyof typeof PACING;

const estimateSchema = {
  body: {
    type: 'object',
    required: ['pacing_preset', 'has_music', 'total_source_bytes'],
    additionalProperties: false,
    properties: {
      pacing_preset: { type: 'string', enum: Object.keys(PACING) },
      has_music: { type: 'boolean' },
      total_source_bytes: { type: 'integer', minimum: 0, maximum: 1e13 },
    },
  },
  response: { 200: { type: 'object', required: ['credits'], properties: { credits: { type: 'integer' } } } },
};

const dollars = (cents: bigint) => Number(cents) / 100;

/** Billing routes: the cost estimate shown to users (the same formula as the charge) and the catalogue. */
export const billingRoutes: FastifyPluginAsync<{ peers: Peers }> = async (app, { peers }) => {
  app.post<{ Body: { pacing_preset: PacingName; has_music: boolean; total_source_bytes: number } }>(
    '/billing/estimate',
    { schema: estimateSchema },
    async (req) => {
      const res = await peers.billing.estimate(
        { pacing: PACING[req.body.pacing_preset], hasMusic: req.body.has_music, totalSourceBytes: BigInt(req.body.total_source_bytes) },
        { requestId: req.id },
      );
      return { credits: Number(res.credits) };
    },
  );

  app.get('/billing/catalogue', async (req, reply) => {
    const c = await peers.billing.getCatalogue({}, { requestId: req.id });
    void reply.header('cache-control', 'public, max-age=300');
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
  });
};
