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

/**
 * POSTs over http(s) with the guarded lookup; redirects are not followed (a 3xx is a failure).
 * `timeoutMs` is a deadline for the whole exchange (connect, headers and the answer's body), not
 * an idle limit: a receiver that trickles its answer cannot hold a delivery slot past it.
 */
export function httpWebhookSender(opts: { allowPrivate: boolean; timeoutMs: number }): WebhookSender {
  const lookup = guardedLookup(opts.allowPrivate);
  return {
    post: (url, headers, body) =>
      new Promise<SendResult>((resolve) => {
        let settled = false;
        const settle = (r: SendResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve(r);
        };
        const u = new URL(url);
        const req = (u.protocol === 'https:' ? https : http).request(
          u,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
            lookup,
            agent: false,
          },
          (res) => {
            res.resume(); // the answer's body is read to its end and dropped
            res.on('end', () => settle({ status: res.statusCode ?? 0 }));
            res.on('error', (e) => settle({ error: e.message }));
            res.on('close', () => settle({ error: 'the answer was cut off' }));
          },
        );
        const deadline = setTimeout(() => {
          settle({ error: `no complete answer within ${opts.timeoutMs} ms` });
          req.destroy();
        }, opts.timeoutMs);
        req.on('error', (e) => settle({ error: e.message }));
        req.end(body);
      }),
  };
}
