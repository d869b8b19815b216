// A bounded smoke load on the public health route of one deployment (loopback or a cluster).
//   k6 run -e BASE_URL=http://localhost:8080 deploy/k6/dist/health.js
import http from 'k6/http';
import { check } from 'k6';
import type { Options } from 'k6/options';
import { API } from './lib/api';

export const options: Options = {
  vus: 10,
  duration: '30s',
  thresholds: { http_req_failed: ['rate<0.01'], http_req_duration: ['p(95)<500'] },
};

export default function (): void {
  const res = http.get(`${API}/health`);
  check(res, { healthy: (r) => r.status === 200 && r.json('status') === 'healthy' });
}
