import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { SendResult, WebhookSender } from '../domain/webhooks/webhooks.service.js';
import { isForbiddenAddress } from '../domain/webhooks/ssrf.js';

/**
 * A host name resolved as usual, refused when any of its addresses is one the SSRF guard forbids;
 * the connection goes to the address checked (no second lookup an attacker's DNS could change).
 */
export const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isForbiddenAddress(a.address));
      if (!allowPrivate && bad)
        return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EFORBIDDEN' }), '', 0);
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

/** POSTs over http(s) with the guarded lookup and a timeout; redirects are not followed (a 3xx is a failure). */
export function httpWebhookSender(opts: { allowPrivate: boolean; timeoutMs: number }): WebhookSender {
  const lookup = guardedLookup(opts.allowPrivate);
  return {
    post: (url, headers, body) =>
      new Promise<SendResult>((resolve) => {
        const u = new URL(url);
        const req = (u.protocol === 'https:' ? https : http).request(
          u,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
            lookup,
            timeout: opts.timeoutMs,
            agent: false,
          },
          (res) => {
            res.resume(); // the answer's body is not read
            resolve({ status: res.statusCode ?? 0 });
          },
        );
        req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
        req.on('error', (e) => resolve({ error: e.message }));
        req.end(body);
      }),
  };
}
