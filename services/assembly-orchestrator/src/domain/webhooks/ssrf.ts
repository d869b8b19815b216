import net from 'node:net';
import { DomainError, ErrorCode } from '@reelsmith/kit';

/**
 * The SSRF guard of webhooks: only http(s) URLs without credentials, and never an address inside
 * the network the service runs in: loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6 (IPv4-mapped,
 * and the IPv6 forms that carry an IPv4 address: IPv4-compatible, NAT64, 6to4 and Teredo, included). Checked on the URL when it is given and on every address its host resolves to when a
 * delivery connects (the connection goes to the address checked). WEBHOOK_ALLOW_PRIVATE=true lifts
 * the address rule for development and tests.
 */
const blocked = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d, e.g. [::7f00:1])
  ['64:ff9b::', 96], // NAT64 well-known prefix: reaches any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // NAT64 local use
  ['100::', 64],
  ['2001::', 32], // Teredo: tunnels to an embedded IPv4 address
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: tunnels to an embedded IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net6, bits, 'ipv6');

/** Whether an IP address (v4 or v6) is one a webhook may never reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

const invalid = (detail: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, detail, 'invalid_webhook_url');

/** The URL a webhook may be sent to (parsed), or INVALID_ARGUMENT (invalid_webhook_url) saying why not. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('The webhook URL is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('The webhook URL must start with http:// or https://.');
  if (url.username || url.password) throw invalid('The webhook URL must not contain a user name or password.');
  if (raw.length > 2000) throw invalid('The webhook URL must be at most 2000 characters.');
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || (net.isIP(host) && isForbiddenAddress(host)))
      throw invalid('The webhook URL must be a public address, not a private, loopback or link-local one.');
  }
  return url;
}
