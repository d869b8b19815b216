import { FILES_ROUTE, verifyLocalSignature, type LocalObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from './schemas.js';
import { sendObject } from './send-object.js';
import { binary } from './contract.js';
import { identifier } from './input-text.js';

/** What a stored file is sent as (from its name). */
const FILE_TYPES = ['video/mp4', 'image/jpeg', 'application/octet-stream'];

export interface FilesDeps {
  store: LocalObjectStore;
  signingSecret: string;
}

/**
 * Serves local-disk objects behind signed, expiring links (the S3 adapter signs links that go to
 * S3 directly). A forged, altered or expired link gets 403. Ranges are honoured (the reel plays
 * and seeks in place), and a signed link may be embedded by the app at any of its origins
 * (PUBLIC_URL's host, or 127.0.0.1 as the browser reached it): the signature is the permission.
 */
export const filesRoutes: FastifyPluginAsyncZod<FilesDeps> = async (app, deps) => {
  const base = FILES_ROUTE.replace('/api/v1', '');
  app.get(
    `${base}/*`,
    {
      schema: {
        summary: 'A stored file behind a signed, expiring link (local-disk storage only)',
        params: z.object({ '*': z.string() }),
        querystring: z.object({
          expires: z.string().optional().describe('When the link expires (Unix seconds)'),
          sig: z.string().optional().describe("The link's signature"),
          name: identifier(200, 'The file name').optional().describe('A download: the file name to save it under'),
        }),
        response: {
          200: binary('The file', ...FILE_TYPES),
          206: binary('The range asked for', ...FILE_TYPES),
          ...errors(403, 404, 416),
        },
      },
    },
    async (req, reply) => {
      const key = req.params['*'];
      const { expires, sig = '', name = '' } = req.query;
      if (!verifyLocalSignature(deps.signingSecret, key, Number(expires), name, sig)) {
        return reply.status(403).send({ detail: 'This link is invalid or has expired.', code: 'link_expired' });
      }
      const info = await deps.store.stat(key);
      if (!info) return reply.status(404).send({ detail: 'Not found', code: 'not_found' });
      void reply.header('cross-origin-resource-policy', 'cross-origin');
      if (name) void reply.header('content-disposition', `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`);
      return sendObject(deps.store, reply, {
        key,
        size: info.size,
        type: key.endsWith('.mp4') ? 'video/mp4' : key.endsWith('.jpg') ? 'image/jpeg' : 'application/octet-stream',
        range: req.headers.range,
        cacheControl: 'private, max-age=3600',
      });
    },
  );
};
