import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';

/** The events Reelsmith POSTs to webhook endpoints and callback URLs, as zod schemas. */
const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string().describe('The event id (evt_...), also in the Reelsmith-Event-Id header: the same on every try and resend'),
    type: z.literal(type),
    created: z.number().int().describe('When it happened, unix seconds'),
    data,
  });

export const webhookEvents = {
  'job.completed': envelope(
    'job.completed',
    z.object({
      job_id: z.string(),
      reel_id: z.string().describe("The reel's id (the job's)"),
      download_url: z.string().describe('GET it with your API key (jobs:read): a redirect to the reel'),
      duration_sec: z.number(),
      size_bytes: z.number().int(),
    }),
  ),
  'job.failed': envelope('job.failed', z.object({ job_id: z.string(), reason: z.string().describe('Why, worded for a person') })),
  'job.cancelled': envelope('job.cancelled', z.object({ job_id: z.string() })),
} as const;

const signature = {
  name: 'Reelsmith-Signature',
  in: 'header',
  required: true,
  description:
    't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint\'s secret (whsec_...)>. Refuse a delivery whose signature does not match or whose t is more than 5 minutes old.',
  schema: { type: 'string' },
};

/**
 * The OpenAPI 3.1 `webhooks` of the document: one POST per event. A 2xx answer within 10 seconds
 * acknowledges it; anything else is tried again with exponential back-off (30 s doubling to 3 h,
 * 20 tries over about 34 hours).
 */
export function webhooksDocument(): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    Object.entries(webhookEvents).map(([name, schema]) => [
      name,
      {
        post: {
          summary: `The ${name} event`,
          parameters: [signature, { name: 'Reelsmith-Event-Id', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(schema, { target: 'draft-2020-12' }) } } },
          responses: { '2XX': { description: 'Received; any other answer (or none within 10 s) is tried again later' } },
        },
      } as OpenAPIV3_1.PathItemObject,
    ]),
  );
}

/** The API key scheme of the document: keys (rs_live_...) sent like a session, restricted by scope. */
export const apiKeyScheme: OpenAPIV3_1.HttpSecurityScheme = {
  type: 'http',
  scheme: 'bearer',
  description:
    'An API key (rs_live_..., POST /api-keys; Corporate plan): Authorization: Bearer rs_live_.... An operation lists the scope a key needs; keys never manage the account, keys, webhooks or payments.',
};
