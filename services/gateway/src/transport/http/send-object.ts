import { Readable } from 'node:stream';
import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyReply } from 'fastify';
import { byteRange } from '../../domain/byte-range.js';

/**
 * Sends a stored object, honouring a Range header (206 with the slice asked for), so players can
 * seek. The gateway's one way of answering with stored bytes (local disk or S3 alike): library
 * files, signed links, showcase reels and the marketplace's clips.
 */
export async function sendObject(
  store: ObjectStore,
  reply: FastifyReply,
  opts: { key: string; size: number; type: string; range: string | undefined; cacheControl: string },
) {
  const { key, size, type } = opts;
  void reply.header('accept-ranges', 'bytes').header('cache-control', opts.cacheControl).type(type);
  // No header, several ranges or another unit: the whole file; past the end: 416.
  const range = byteRange(opts.range, size);
  if (range === 'unsatisfiable')
    return reply
      .status(416)
      .type('application/json')
      .header('cache-control', 'no-store')
      .header('content-range', `bytes */${size}`)
      .send({ detail: 'Range not satisfiable', code: 'range_not_satisfiable' });
  // A HEAD gets the headers only: the object is not opened (Fastify's HEAD route would read a
  // stream to its end and throw it away, a whole download from S3).
  const body = (r?: { start: number; end: number }) => (reply.request.method === 'HEAD' ? Readable.from([]) : store.get(key, r));
  if (!range) {
    void reply.header('content-length', size);
    return reply.send(await body());
  }
  void reply
    .status(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', range.end - range.start + 1);
  return reply.send(await body(range));
}

/**
 * sendObject for an object whose size the caller does not know: stat first, `notFound` (404) when
 * it is gone. With `s3RedirectSeconds`, an S3 store answers with a redirect to a signed link of
 * that lifetime instead (public media: S3 serves the bytes and the ranges, the gateway's
 * connections to S3 stay free for the rest).
 */
export async function sendStoredObject(
  store: ObjectStore,
  reply: FastifyReply,
  opts: {
    key: string;
    type: string;
    range: string | undefined;
    cacheControl: string;
    notFound?: { detail: string; code: string };
    s3RedirectSeconds?: number;
  },
) {
  if (opts.s3RedirectSeconds && store.kind === 's3' && opts.key)
    return reply.redirect(await store.signedUrl(opts.key, { expiresInSeconds: opts.s3RedirectSeconds }), 302);
  const info = opts.key ? await store.stat(opts.key) : null;
  if (!info) return reply.status(404).send(opts.notFound ?? { detail: 'Not found', code: 'not_found' });
  return sendObject(store, reply, { ...opts, size: info.size });
}
