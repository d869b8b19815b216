import { detailedHealth } from '../../src/domain/detailed-health';
import { RequestCounter } from '../../src/domain/request-counter';

describe('per-minute request counts', () => {
  it('counts by route template and status class, and hands over only finished minutes', () => {
    let t = Date.parse('2026-11-23T12:00:10Z');
    const c = new RequestCounter(() => t);
    c.count('GET', '/api/v1/x', 200, 3);
    c.count('GET', '/api/v1/x', 204, 30);
    c.count('GET', '/api/v1/x', 503, 3000);
    expect(c.take()).toEqual([]);
    t += 60_000;
    c.count('POST', '/api/v1/y', 400, 1);
    const [m, ...rest] = c.take();
    expect(rest).toEqual([]);
    expect(m!.minuteMs).toBe(Date.parse('2026-11-23T12:00:00Z'));
    expect(m!.routes.sort((a, b) => a.statusClass.localeCompare(b.statusClass))).toEqual([
      { method: 'GET', route: '/api/v1/x', statusClass: '2xx', count: 2 },
      { method: 'GET', route: '/api/v1/x', statusClass: '5xx', count: 1 },
    ]);
    expect(m!.latencyBuckets.reduce((a, b) => a + b, 0)).toBe(3);
    // A minute that could not be sent comes back, merged.
    c.giveBack([m!]);
    expect(c.take(true).map((x) => x.routes.reduce((a, r) => a + r.count, 0))).toEqual([3, 1]);
  });
});

describe('detailed health', () => {
  const ok = { name: 'identity', up: true, databaseOk: true, databaseMs: 3, version: '0.1.0' };
  const base = {
    storage: { ok: true, ms: 5 },
    system: { cpuPercent: 10, memoryPercent: 20, diskPercent: 30 },
    queue: { pending: 0, inProgress: 0, deadLettered: 0 },
  };
  it('is healthy when everything answers, with the worst database time', () => {
    const h = detailedHealth({ ...base, services: [ok, { ...ok, name: 'billing', databaseMs: 12 }] });
    expect(h.overall_status).toBe('healthy');
    expect(h.checks.database).toEqual({ status: 'healthy', response_time_ms: 12 });
  });
  it('is unhealthy when a service is down or its database fails, and warns on dead letters or a full disk', () => {
    expect(detailedHealth({ ...base, services: [ok, { ...ok, name: 'billing', up: false }] }).overall_status).toBe('unhealthy');
    expect(detailedHealth({ ...base, services: [{ ...ok, databaseOk: false }] }).checks.database.status).toBe('unhealthy');
    expect(detailedHealth({ ...base, services: [ok], queue: { pending: 0, inProgress: 0, deadLettered: 1 } }).overall_status).toBe(
      'warning',
    );
    expect(detailedHealth({ ...base, services: [ok], system: { cpuPercent: 1, memoryPercent: 1, diskPercent: 95 } }).overall_status).toBe(
      'warning',
    );
    expect(detailedHealth({ ...base, services: [ok], storage: { ok: false, ms: 1 } }).checks.s3_storage.status).toBe('unhealthy');
  });
});
