import type { webhooks } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';
import { errors, message, uuidParams } from './schemas.js';

const event = z.enum(['job.completed', 'job.failed', 'job.cancelled']).meta({ id: 'WebhookEvent' });
const iso = (ms: bigint) => (ms > 0n ? new Date(Number(ms)).toISOString() : null);

export const webhookEndpoint = z
  .object({ id: z.uuid(), url: z.string(), events: z.array(event), created_at: z.string() })
  .meta({ id: 'WebhookEndpoint' });

export const webhookDelivery = z
  .object({
    id: z.uuid(),
    event_id: z.string().describe('The event id (also in the Reelsmith-Event-Id header): the same for every try and resend'),
    event_type: z.enum(['job.completed', 'job.failed', 'job.cancelled', 'test']),
    job_id: z.string().nullable(),
    url: z.string(),
    endpoint_id: z.string().nullable().describe("null: the job's callback_url"),
    status: z.enum(['pending', 'delivered', 'failed']).describe('failed: no more tries (about 34 hours of back-off)'),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable().describe("The receiver's last HTTP status; null: no answer yet"),
    last_error: z.string(),
    created_at: z.string(),
    next_attempt_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

const endpointView = (e: webhooks.WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events as z.infer<typeof event>[],
  created_at: iso(e.createdAtUnixMs) ?? '',
});
const deliveryView = (d: webhooks.WebhookDeliveryView) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType as z.infer<typeof webhookDelivery>['event_type'],
  job_id: d.jobId || null,
  url: d.url,
  endpoint_id: d.endpointId || null,
  status: d.status as z.infer<typeof webhookDelivery>['status'],
  attempts: d.attempts,
  last_status_code: d.lastStatusCode || null,
  last_error: d.lastError,
  created_at: iso(d.createdAtUnixMs) ?? '',
  next_attempt_at: iso(d.nextAttemptAtUnixMs),
});

/**
 * Webhook endpoints and the delivery log of the signed-in user (a session; an API key never manages
 * them). Events are signed with `Reelsmith-Signature: t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">`.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.post(
    '/webhook-endpoints',
    {
      config: { access: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        summary: 'Add a webhook endpoint (a public http(s) URL): the signing secret is in this answer only',
        body: z.object({ url: z.string().max(2000), events: z.array(event).min(1).max(3) }).meta({ id: 'WebhookEndpointRequest' }),
        response: {
          201: webhookEndpoint
            .extend({ secret: z.string().describe('whsec_...: verify each delivery with it') })
            .meta({ id: 'WebhookEndpointCreated' }),
          ...errors(400, 401, 403, 429),
        },
      },
    },
    async (req, reply) => {
      const r = await peers.webhooks.createEndpoint(
        { ownerId: callerOf(req).id, url: req.body.url, events: req.body.events },
        { requestId: req.id },
      );
      return reply
        .status(201)
        .header('cache-control', 'no-store')
        .send({ ...endpointView(r.endpoint!), secret: r.secret });
    },
  );

  app.get(
    '/webhook-endpoints',
    {
      config: { access: 'user' },
      schema: {
        summary: "Your webhook endpoints, and the secret that signs your jobs' callback_url deliveries",
        response: {
          200: z
            .object({
              endpoints: z.array(webhookEndpoint),
              callback_secret: z.string().describe("whsec_...: signs the deliveries to a job's callback_url"),
            })
            .meta({ id: 'WebhookEndpointList' }),
          ...errors(401, 403),
        },
      },
    },
    async (req, reply) => {
      const r = await peers.webhooks.listEndpoints({ ownerId: callerOf(req).id }, { requestId: req.id });
      return reply
        .header('cache-control', 'no-store')
        .send({ endpoints: r.endpoints.map(endpointView), callback_secret: r.callbackSecret });
    },
  );

  app.delete(
    '/webhook-endpoints/:id',
    {
      config: { access: 'user' },
      schema: { summary: 'Delete a webhook endpoint', params: uuidParams, response: { 200: message, ...errors(400, 401, 403, 404) } },
    },
    async (req) => {
      await peers.webhooks.deleteEndpoint({ ownerId: callerOf(req).id, endpointId: req.params.id }, { requestId: req.id });
      return { message: 'Webhook endpoint deleted' };
    },
  );

  app.post(
    '/webhook-endpoints/:id/test',
    {
      config: { access: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        summary: 'Send a test event to an endpoint; answers its delivery (sent in the background)',
        params: uuidParams,
        response: { 202: webhookDelivery, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const d = await peers.webhooks.sendTest({ ownerId: callerOf(req).id, endpointId: req.params.id }, { requestId: req.id });
      return reply.status(202).send(deliveryView(d));
    },
  );

  app.get(
    '/webhook-deliveries',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Your last webhook deliveries, newest first, with their status',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
        response: { 200: z.object({ deliveries: z.array(webhookDelivery) }).meta({ id: 'WebhookDeliveryList' }), ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const r = await peers.webhooks.listDeliveries({ ownerId: callerOf(req).id, limit: req.query.limit }, { requestId: req.id });
      return { deliveries: r.deliveries.map(deliveryView) };
    },
  );

  app.post(
    '/webhook-deliveries/:id/resend',
    {
      config: { access: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        summary: 'Send a delivery again now, with a fresh round of tries',
        params: uuidParams,
        response: { 202: webhookDelivery, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const d = await peers.webhooks.resendDelivery({ ownerId: callerOf(req).id, deliveryId: req.params.id }, { requestId: req.id });
      return reply.status(202).send(deliveryView(d));
    },
  );
};
