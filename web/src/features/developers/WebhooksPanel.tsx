import { useId, useState, type FormEvent } from 'react';
import { errorDetail } from '../../base/api';
import { ErrorAlert } from '../../components/ErrorAlert';
import {
  useCreateWebhookEndpointMutation,
  useDeleteWebhookEndpointMutation,
  useResendWebhookDeliveryMutation,
  useTestWebhookEndpointMutation,
  useWebhookDeliveriesQuery,
  useWebhookEndpointsQuery,
  type WebhookEndpointCreated,
  type WebhookEvent,
} from './developers.api';

const EVENTS: WebhookEvent[] = ['job.completed', 'job.failed', 'job.cancelled'];
const STATUS: Record<string, string> = { pending: 'Retrying', delivered: 'Delivered', failed: 'Failed' };

/**
 * Settings' "Webhooks": endpoints (the signing secret shown once, a test event), and the last
 * deliveries with their status, each of which can be sent again.
 */
export function WebhooksPanel() {
  const endpoints = useWebhookEndpointsQuery();
  const deliveries = useWebhookDeliveriesQuery(undefined, { pollingInterval: 15_000 });
  const [create, createState] = useCreateWebhookEndpointMutation();
  const [remove] = useDeleteWebhookEndpointMutation();
  const [test] = useTestWebhookEndpointMutation();
  const [resend] = useResendWebhookDeliveryMutation();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['job.completed', 'job.failed']);
  const [created, setCreated] = useState<WebhookEndpointCreated | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const secretId = useId();

  const act = async (what: () => Promise<unknown>, fallback: string) => {
    setError(null);
    try {
      await what();
    } catch (err) {
      setError(errorDetail(err, fallback));
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!url.trim()) return setError('Enter the https:// address that should receive the events.');
    void act(async () => {
      setCreated(await create({ url: url.trim(), events }).unwrap());
      setUrl('');
    }, 'Could not add the endpoint. Please try again.');
  };

  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>Webhooks</h3>
      <p className="muted">
        Reelsmith POSTs signed events (<code>Reelsmith-Signature</code>) to these addresses when a reel is ready, fails or is cancelled.
      </p>
      {created && (
        <div className="notice success" role="status">
          <label htmlFor={secretId}>Signing secret for {created.url}. Copy it now: it will not be shown again.</label>
          <div className="row">
            <input id={secretId} readOnly value={created.secret} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" className="btn" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {endpoints.isError ? (
        <ErrorAlert error={endpoints.error} fallback="Could not load your webhook endpoints." />
      ) : endpoints.data?.endpoints.length ? (
        <ul aria-label="Your webhook endpoints">
          {endpoints.data.endpoints.map((e) => (
            <li key={e.id}>
              <code>{e.url}</code> <span className="muted">{e.events.join(', ')}</span>{' '}
              <button type="button" className="btn" onClick={() => void act(() => test(e.id).unwrap(), 'Could not send a test event.')}>
                Send Test Event
              </button>{' '}
              <button
                type="button"
                className="btn danger"
                onClick={() => void act(() => remove(e.id).unwrap(), 'Could not delete the endpoint.')}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : (
        !endpoints.isLoading && <p className="muted">No webhook endpoints yet.</p>
      )}
      <form className="form" onSubmit={submit} noValidate aria-label="Add a webhook endpoint">
        <label>
          Endpoint URL
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/reelsmith-webhook" />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label key={ev} className="check">
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))}
              />{' '}
              <code>{ev}</code>
            </label>
          ))}
        </fieldset>
        <button className="btn" type="submit" disabled={createState.isLoading || !events.length}>
          Add Endpoint
        </button>
      </form>
      <h4>Last deliveries</h4>
      {deliveries.isError ? (
        <ErrorAlert error={deliveries.error} fallback="Could not load the deliveries." />
      ) : !deliveries.data?.length ? (
        <p className="muted">{deliveries.isLoading ? 'Loading…' : 'No deliveries yet.'}</p>
      ) : (
        <ul aria-label="Last webhook deliveries">
          {deliveries.data.map((d) => (
            <li key={d.id}>
              <code>{d.event_type}</code> to <code>{d.url}</code>: {STATUS[d.status] ?? d.status}
              {d.last_status_code ? ` (HTTP ${d.last_status_code})` : d.last_error ? ` (${d.last_error})` : ''}, {d.attempts}{' '}
              {d.attempts === 1 ? 'try' : 'tries'}
              <span className="muted"> · {new Date(d.created_at).toLocaleString()}</span>{' '}
              <button type="button" className="btn" onClick={() => void act(() => resend(d.id).unwrap(), 'Could not resend the delivery.')}>
                Resend
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
