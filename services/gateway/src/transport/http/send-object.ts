import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyReply } from 'fastify';
import { byteRange } from '../../domain/byte-range.js';

/** Parses one `bytes=` range against a size; null when absent, 'bad' when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'bad' {
  // The gateway's one Range parser; stored files answer 416 to any Range they would not honour.
  const r = byteRange(header, size);
  if (r === 'unsatisfiable' || (header && r === null)) return 'bad';
  return r;
}

/** Sends a stored object, honouring a Range header (206 with the slice asked for), so players can seek. */
export async function sendObject(
  store: ObjectStore,
  reply: FastifyReply,
  opts: { key: string; size: number; type: string; range: string | undefined; cacheControl: string },
) {
  const { key, size, type } = opts;
  void reply.header('accept-ranges', 'bytes').header('cache-control', opts.cacheControl).type(type);
  const range = parseRange(opts.range, size);
  if (range === 'bad')
    return reply
      .status(416)
      .type('application/json')
      .header('cache-control', 'no-store')
      .header('content-range', `bytes */${size}`)
      .send({ detail: 'Range not satisfiable', code: 'bad_range' });
  if (!range) {
    void reply.header('content-length', size);
    return reply.send(await store.get(key));
  }
  void reply
    .status(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', range.end - range.start + 1);
  return reply.send(await store.get(key, range));
}
