import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from '../../components/navigation';
import { errorDetail } from '../../base/api';
import { Page } from '../../components/Page';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useCurrentUser } from '../auth';
import { InboxSection } from '../public';
import '../public/public.css';
import { ShowcaseAdminSection } from '../public';
import {
  useGuestPassQuery,
  useLazyActivityFeedQuery,
  useLazyDashboardMetricsQuery,
  useLazyDetailedHealthQuery,
  useSetGuestPassMutation,
  type ActivityEvent,
  type DetailedHealth,
  type Metrics,
} from './admin.api';
import { ERROR_RATE_THRESHOLD, activityLabel, refreshInterval, relativeTime, statusColour } from './format';
import { HourChart } from './HourChart';
import './admin.css';
import { formatCount, formatDecimal, formatMoney, formatTime } from '../../base/format';

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
const statusText = (e: unknown) => {
  const s = (e as { status?: unknown } | undefined)?.status;
  return typeof s === 'number' ? (STATUS_TEXT[s] ?? String(s)) : 'Network error';
};

function StatusCard({ title, status, detail }: { title: string; status?: string; detail: string }) {
  return (
    <div className={`stat-card status-${statusColour(status)}`} data-testid={`card-${title.toLowerCase().replace(/\s+/g, '-')}`}>
      <div className="muted">{title}</div>
      <div className="stat-value">{status ?? 'unknown'}</div>
      <div className="muted">{detail}</div>
    </div>
  );
}

function Figure({ label, value, alert }: { label: string; value: string; alert?: boolean }) {
  return (
    <div className="figure">
      <div className="muted">{label}</div>
      <div className={`stat-value${alert ? ' danger' : ''}`}>{value}</div>
    </div>
  );
}

function GuestPassPanel() {
  const { data, error, isLoading } = useGuestPassQuery();
  const [setPass, { isLoading: saving, error: saveError }] = useSetGuestPassMutation();
  const [shown, setShown] = useState<{ email: string; password: string } | null>(null);
  const change = async (enabled: boolean) => {
    const r = await setPass({ enabled })
      .unwrap()
      .catch(() => null);
    // The password exists only in this answer: shown once, gone on the next change or reload.
    setShown(r?.enabled && r.password ? { email: r.email, password: r.password } : null);
  };
  return (
    <section className="panel" aria-labelledby="guest-pass-h">
      <h2 id="guest-pass-h">Guest pass</h2>
      <p className="muted">Enterprise access without admin rights, shared through one guest login.</p>
      {isLoading ? (
        <p className="muted">Loading...</p>
      ) : error ? (
        <p className="error">Failed to fetch guest pass: {statusText(error)}</p>
      ) : (
        <div className="row">
          <label className="switch">
            {/* Not disabled while saving: a disabled control drops the keyboard focus that just toggled it. */}
            <input
              type="checkbox"
              checked={Boolean(data?.enabled)}
              aria-busy={saving}
              onChange={(e) => {
                if (!saving) void change(e.target.checked);
              }}
            />
            <span>{data?.enabled ? 'Enabled' : 'Disabled'}</span>
          </label>
          {data?.enabled && (
            <button className="btn" disabled={saving} onClick={() => void change(true)}>
              Rotate password
            </button>
          )}
        </div>
      )}
      {saveError && <p className="error">{errorDetail(saveError, 'Could not change the guest pass.')}</p>}
      {shown && (
        <div className="notice" role="status">
          Guest login: <code>{shown.email}</code> / password <code>{shown.password}</code> (shown once: note it now)
        </div>
      )}
    </section>
  );
}

function ActivityList({ events }: { events: ActivityEvent[] }) {
  if (!events.length) return <p className="muted">No recent activity found.</p>;
  return (
    <ul className="activity" tabIndex={0} aria-label="Recent activity">
      {events.map((e, i) => (
        <li key={`${e.timestamp}-${i}`}>
          <div>
            <strong>{activityLabel(e.type)}</strong> <span>{e.user_email || 'unknown user'}</span>
            {e.login_type && <span className="tag">{e.login_type}</span>}
            {e.actual_duration_seconds !== null && <span className="muted"> · {e.actual_duration_seconds.toFixed(1)} s</span>}
            {e.detail && <span className="muted"> · {e.detail}</span>}
          </div>
          <time dateTime={e.timestamp} className="muted">
            {relativeTime(e.timestamp)}
          </time>
        </li>
      ))}
    </ul>
  );
}

function Dashboard({ refreshMs }: { refreshMs: number }) {
  const [loadHealth] = useLazyDetailedHealthQuery();
  const [loadMetrics] = useLazyDashboardMetricsQuery();
  const [loadFeed] = useLazyActivityFeedQuery();
  const [health, setHealth] = useState<DetailedHealth>();
  const [metrics, setMetrics] = useState<Metrics>();
  const [feed, setFeed] = useState<ActivityEvent[]>();
  const [errors, setErrors] = useState<string[]>([]);
  const [updated, setUpdated] = useState<Date>();
  const [busy, setBusy] = useState(false);
  // The guest pass panel sits above the figures: the dashboard shows once it has loaded, so its form does not push them down.
  const guestPassLoading = useGuestPassQuery().isLoading;
  const running = useRef<Promise<void>>(undefined);

  const refresh = useCallback(() => {
    running.current ??= (async () => {
      setBusy(true);
      const [h, m, f] = await Promise.allSettled([loadHealth().unwrap(), loadMetrics().unwrap(), loadFeed({ limit: 50 }).unwrap()]);
      const failed: string[] = [];
      if (h.status === 'fulfilled') setHealth(h.value);
      else failed.push(`Failed to fetch health data: ${statusText(h.reason)}`);
      if (m.status === 'fulfilled') setMetrics(m.value);
      else failed.push(`Failed to fetch metrics: ${statusText(m.reason)}`);
      if (f.status === 'fulfilled') setFeed(f.value);
      else failed.push(`Failed to fetch activity feed: ${statusText(f.reason)}`);
      setErrors(failed);
      setUpdated(new Date());
      setBusy(false);
    })().finally(() => (running.current = undefined));
    return running.current;
  }, [loadHealth, loadMetrics, loadFeed]);

  // Every 30 s (or ?refresh=), the next refresh scheduled only once the previous one has finished.
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      await refresh();
      if (!stopped) timer = setTimeout(() => void tick(), refreshMs);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [refresh, refreshMs]);

  if (!updated || guestPassLoading) return <p className="muted">Loading system dashboard...</p>;
  const errorRate = metrics?.metrics_summary.error_rate ?? 0;
  const sys = health?.checks.system;
  const hourly = metrics?.hourly ?? [];
  return (
    <>
      <div className="dash-head">
        <span className="muted" data-testid="last-updated">
          Last updated: {formatTime(updated)}
        </span>
        <button className="btn" onClick={() => void refresh()} disabled={busy}>
          {busy ? 'Refreshing...' : 'Refresh'}
        </button>
      </div>
      {errors.map((e) => (
        <ErrorAlert key={e}>{e}</ErrorAlert>
      ))}
      <div className="stat-grid">
        <StatusCard
          title="System status"
          status={health?.overall_status}
          detail={health ? `${health.services.length} services` : 'no data'}
        />
        <StatusCard
          title="Database"
          status={health?.checks.database.status}
          detail={health ? `${health.checks.database.response_time_ms} ms response` : 'no data'}
        />
        <StatusCard
          title="Storage"
          status={health?.checks.s3_storage.status}
          detail={health ? `${health.checks.s3_storage.response_time_ms} ms response` : 'no data'}
        />
      </div>

      <GuestPassPanel />

      <div className="panels">
        <section className="panel" aria-labelledby="resources-h">
          <h2 id="resources-h">System resources</h2>
          <div className="figures">
            <Figure label="CPU" value={sys ? `${sys.cpu_percent}%` : '-'} />
            <Figure label="Memory" value={sys ? `${sys.memory_percent}%` : '-'} />
            <Figure label="Disk" value={sys ? `${sys.disk_percent}%` : '-'} />
          </div>
          {health && (
            <p className="muted">
              Render queue: {health.queue.pending} waiting, {health.queue.in_progress} rendering, {health.queue.dead_lettered} given up
              (24h)
            </p>
          )}
        </section>
        <section className="panel" aria-labelledby="requests-h">
          <h2 id="requests-h">Request metrics (24h)</h2>
          <div className="figures">
            <Figure label="Total requests" value={formatCount(metrics?.metrics_summary.total_requests ?? 0)} />
            <Figure label="Error rate" value={`${formatDecimal(errorRate, 2)}%`} alert={errorRate > ERROR_RATE_THRESHOLD} />
            <Figure label="p95" value={`${metrics?.metrics_summary.p95_ms ?? 0} ms`} />
          </div>
        </section>
        {/* The dashboard's panels look alike by design: a heading and its figures each. */}
        <section className="panel" aria-labelledby="users-h">
          <h2 id="users-h">User analytics (24h)</h2>
          <div className="figures">
            <Figure label="Total users" value={formatCount(metrics?.user_analytics.total_users ?? 0)} />
            <Figure label="New users" value={formatCount(metrics?.user_analytics.new_users ?? 0)} />
            <Figure label="Active users" value={formatCount(metrics?.user_analytics.active_users ?? 0)} />
          </div>
        </section>
        <section className="panel" aria-labelledby="reels-h">
          <h2 id="reels-h">Reels (24h)</h2>
          <div className="figures">
            <Figure label="Completed" value={formatCount(metrics?.jobs.completed ?? 0)} />
            <Figure label="Failed" value={formatCount(metrics?.jobs.failed ?? 0)} />
            <Figure label="Render p50 / p95" value={`${metrics?.jobs.p50_render_s ?? 0} / ${metrics?.jobs.p95_render_s ?? 0} s`} />
            <Figure label="Revenue" value={formatMoney(metrics?.revenue_usd ?? 0)} />
          </div>
        </section>
      </div>

      <section className="panel" aria-labelledby="charts-h">
        <h2 id="charts-h">Last 24 hours, per hour</h2>
        <div className="charts">
          <HourChart title="Requests" colour="#4f8cff" points={hourly.map((x) => ({ hour: x.hour, value: x.requests }))} />
          <HourChart title="Errors (5xx)" colour="#ff6b6b" points={hourly.map((x) => ({ hour: x.hour, value: x.errors }))} />
          <HourChart title="Completed reels" colour="#3ecf8e" points={hourly.map((x) => ({ hour: x.hour, value: x.completed_reels }))} />
        </div>
      </section>

      <div className="panels">
        <section className="panel" aria-labelledby="services-h">
          <h2 id="services-h">Services</h2>
          {health?.services.length ? (
            <div className="table-wrap">
              {/* Table markup like PricingPage's history by design: each page's own columns. */}
              <table className="services">
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">Status</th>
                    <th scope="col">Restarts</th>
                    <th scope="col">Version</th>
                  </tr>
                </thead>
                <tbody>
                  {health.services.map((s) => (
                    <tr key={s.name}>
                      <td>{s.name}</td>
                      <td>
                        <span className={`dot status-${statusColour(s.status)}`} aria-hidden="true" /> {s.status}
                      </td>
                      <td>{s.restarts ?? '-'}</td>
                      <td>{s.version}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">No service data.</p>
          )}
        </section>
        <section className="panel" aria-labelledby="activity-h">
          <h2 id="activity-h">Recent Activity</h2>
          <ActivityList events={feed ?? []} />
        </section>
      </div>

      <ShowcaseAdminSection />
      <InboxSection />
    </>
  );
}

/** /admin: the system dashboard (admins only; the server refuses everyone else anyway). */
export function AdminPage() {
  const { user, loading } = useCurrentUser();
  const { search } = useLocation();
  return (
    <Page title="System Dashboard">
      {loading ? (
        <p className="muted">Loading system dashboard...</p>
      ) : !user?.is_admin ? (
        <ErrorAlert>Access Denied - This page is only accessible to administrators.</ErrorAlert>
      ) : (
        <div className="admin-dash">
          <Dashboard refreshMs={refreshInterval(search)} />
        </div>
      )}
    </Page>
  );
}
