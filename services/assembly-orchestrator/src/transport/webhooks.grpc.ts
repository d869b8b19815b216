import { bind } from '@reelsmith/kit';
import { webhooks } from '@reelsmith/proto';
import type { DeliveryRecord, EndpointRecord, WebhooksService } from '../domain/webhooks/webhooks.service.js';

const ms = (d: Date | null) => (d ? BigInt(d.getTime()) : 0n);
const endpoint = (e: EndpointRecord) => ({ id: e.id, url: e.url, events: e.events, createdAtUnixMs: ms(e.createdAt) });
const delivery = (d: DeliveryRecord) => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  url: d.url,
  endpointId: d.endpointId ?? '',
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAtUnixMs: ms(d.createdAt),
  nextAttemptAtUnixMs: d.status === 'pending' ? ms(d.nextAttemptAt) : 0n,
  jobId: d.jobId,
});

/** The orchestrator's WebhookService: thin, one call into the domain per handler. */
export const webhooksBinding = (svc: WebhooksService) =>
  bind(webhooks.WebhookService, {
    createEndpoint: async (req) => {
      const r = await svc.createEndpoint(req.ownerId, req.url, req.events);
      return { endpoint: endpoint(r.endpoint), secret: r.secret };
    },
    listEndpoints: async (req) => {
      const r = await svc.listEndpoints(req.ownerId);
      return { endpoints: r.endpoints.map(endpoint), callbackSecret: r.callbackSecret };
    },
    deleteEndpoint: async (req) => {
      await svc.deleteEndpoint(req.ownerId, req.endpointId);
      return {};
    },
    sendTest: async (req) => delivery(await svc.sendTest(req.ownerId, req.endpointId)),
    listDeliveries: async (req) => ({ deliveries: (await svc.listDeliveries(req.ownerId, req.limit)).map(delivery) }),
    resendDelivery: async (req) => delivery(await svc.resend(req.ownerId, req.deliveryId)),
  });
