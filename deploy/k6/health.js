// k6 run -e BASE_URL=http://localhost:8080 deploy/k6/health.js
// A bounded smoke load on the public health route of one deployment (loopback or your cluster).
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  vus: 10,
  duration: '30s',
  thresholds: { http_req_failed: ['rate<0.01'], http_req_duration: ['p(95)<500'] },
};

const base = __ENV.BASE_URL || 'http://localhost:8080';

export default function () {
  const res = http.get(`${base}/api/v1/health`);
  check(res, { healthy: (r) => r.status === 200 && r.json('status') === 'healthy' });
}
