import type { Database } from '@reelsmith/kit';
import type { DeliveryRecord, EndpointRecord, WebhookRepository } from '../domain/webhooks/webhooks.service.js';

type Row = Record<string, unknown>;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
const endpointOf = (r: Row): EndpointRecord => ({
  id: r['id'] as string,
  ownerId: r['owner_id'] as string,
  url: r['url'] as string,
  events: r['events'] as string[],
  secret: r['secret'] as string,
  createdAt: date(r['created_at'])!,
});
const deliveryOf = (r: Row): DeliveryRecord => ({
  id: r['id'] as string,
  ownerId: r['owner_id'] as string,
  eventId: r['event_id'] as string,
  eventType: r['event_type'] as string,
  jobId: r['job_id'] as string,
  endpointId: (r['endpoint_id'] as string | null) ?? null,
  url: r['url'] as string,
  payload: r['payload'] as string,
  status: r['status'] as DeliveryRecord['status'],
  attempts: Number(r['attempts']),
  round: Number(r['round']),
  lastStatusCode: Number(r['last_status_code']),
  lastError: r['last_error'] as string,
  nextAttemptAt: date(r['next_attempt_at']),
  createdAt: date(r['created_at'])!,
});
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Webhook endpoints, callback secrets and deliveries in the orchestrator's database (migration 0007). */
export class DbWebhookRepository implements WebhookRepository {
  constructor(private readonly db: Database) {}

  async insertEndpoint(e: EndpointRecord) {
    await this.db.query('insert into webhook_endpoints (id, owner_id, url, events, secret, created_at) values ($1, $2, $3, $4, $5, $6)', [
      e.id,
      e.ownerId,
      e.url,
      e.events,
      e.secret,
      e.createdAt.toISOString(),
    ]);
  }
  async endpoints(ownerId: string) {
    const rows = await this.db.query<Row>(
      'select * from webhook_endpoints where owner_id = $1 and deleted_at is null order by created_at, id',
      [ownerId],
    );
    return rows.map(endpointOf);
  }
  async endpoint(ownerId: string, id: string) {
    const rows = await this.db.query<Row>('select * from webhook_endpoints where owner_id = $1 and id = $2 and deleted_at is null', [
      ownerId,
      id,
    ]);
    return rows[0] ? endpointOf(rows[0]) : null;
  }
  async deleteEndpoint(ownerId: string, id: string, at: Date) {
    const rows = await this.db.query(
      'update webhook_endpoints set deleted_at = $3 where owner_id = $1 and id = $2 and deleted_at is null returning 1',
      [ownerId, id, at.toISOString()],
    );
    return rows.length === 1;
  }
  async callbackSecret(ownerId: string, make: () => string) {
    await this.db.query('insert into webhook_accounts (owner_id, callback_secret) values ($1, $2) on conflict do nothing', [
      ownerId,
      make(),
    ]);
    const rows = await this.db.query<{ callback_secret: string }>('select callback_secret from webhook_accounts where owner_id = $1', [
      ownerId,
    ]);
    return rows[0]!.callback_secret;
  }
  async jobCallback(jobId: string) {
    const rows = await this.db.query<{ owner_id: string; url: string | null }>(
      "select owner_id, request->>'callback_url' as url from jobs where id::text = $1",
      [jobId],
    );
    const r = rows[0];
    return r?.url ? { ownerId: r.owner_id, url: r.url } : null;
  }
  async insertDelivery(d: DeliveryRecord) {
    await this.db.query(
      `insert into webhook_deliveries (id, owner_id, event_id, event_type, job_id, endpoint_id, url, payload, status, next_attempt_at, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (id) do nothing`,
      [
        d.id,
        d.ownerId,
        d.eventId,
        d.eventType,
        d.jobId,
        d.endpointId,
        d.url,
        d.payload,
        d.status,
        iso(d.nextAttemptAt),
        d.createdAt.toISOString(),
      ],
    );
  }
  async delivery(id: string) {
    const rows = await this.db.query<Row>('select * from webhook_deliveries where id = $1', [id]);
    return rows[0] ? deliveryOf(rows[0]) : null;
  }
  async deliveries(ownerId: string, limit: number) {
    const rows = await this.db.query<Row>('select * from webhook_deliveries where owner_id = $1 order by created_at desc, id limit $2', [
      ownerId,
      limit,
    ]);
    return rows.map(deliveryOf);
  }
  async recordAttempt(id: string, r: Pick<DeliveryRecord, 'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'nextAttemptAt'>) {
    await this.db.query(
      `update webhook_deliveries set status = $2, attempts = $3, last_status_code = $4, last_error = $5, next_attempt_at = $6,
         delivered_at = case when $2 = 'delivered' then now() else delivered_at end
       where id = $1`,
      [id, r.status, r.attempts, r.lastStatusCode, r.lastError, iso(r.nextAttemptAt)],
    );
  }
  async resend(ownerId: string, id: string, at: Date) {
    const rows = await this.db.query<Row>(
      `update webhook_deliveries set status = 'pending', attempts = 0, round = round + 1, next_attempt_at = $3, last_error = ''
       where owner_id = $1 and id = $2 returning *`,
      [ownerId, id, at.toISOString()],
    );
    return rows[0] ? deliveryOf(rows[0]) : null;
  }
}
