import multipart from '@fastify/multipart';
import { DomainError, ErrorCode, type ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { importLibraryFile } from '../../../domain/library-import.js';
import type { Peers } from '../../../repositories/clients.js';
import { libraryImportPorts } from '../../../repositories/library-import.js';
import { LINE_RULE, cleanLine } from '../input-text.js';
import { errors, libraryKeyParams, message } from '../schemas.js';

/** POST /admin/library's body in the document (the route reads the multipart stream itself). */
const libraryUpload = {
  contentType: 'multipart/form-data',
  description: 'An optional "category" field, then the file in the field "file" (at most 4 GiB)',
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      category: { type: 'string', maxLength: 200, pattern: LINE_RULE.source, default: 'general' },
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The video or music file, with its name' },
    },
  },
};

/** The stock libraries' admin side: add a video or music file, remove an item. Browsing is media-library.routes.ts. */
export const libraryAdminRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  // Only the upload parses multipart bodies.
  await app.register(async (upload) => {
    await upload.register(multipart, { limits: { files: 1, fields: 2, parts: 3, fieldSize: 200 } });
    upload.post(
      '/admin/library',
      {
        config: { access: 'admin', documentedBody: libraryUpload },
        schema: {
          summary: 'Add a video or music file to the stock libraries (multipart: optional field "category", then "file")',
          consumes: ['multipart/form-data'],
          response: {
            201: z
              .object({ outcome: z.enum(['imported', 'duplicate']), key: z.string(), kind: z.string(), category: z.string() })
              .meta({ id: 'LibraryImport' }),
            ...errors(400, 401, 403),
          },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart())
          throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Send the file as multipart/form-data in the field "file".', 'not_multipart');
        let category = 'general';
        for await (const part of req.parts({ limits: { fileSize: 4 * 1024 ** 3 } })) {
          if (part.type === 'field' && part.fieldname === 'category') category = cleanLine(String(part.value), 'The category');
          else if (part.type === 'file' && part.fieldname === 'file') {
            const file = { filename: cleanLine(part.filename, 'The file name'), category, body: part.file };
            return reply.status(201).send(await importLibraryFile(libraryImportPorts(peers, store, req.id), file));
          }
        }
        throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'No file was uploaded (expected the field "file").', 'no_file');
      },
    );
  });

  app.delete(
    '/admin/library/:key',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Remove an item from the stock libraries',
        params: libraryKeyParams,
        response: { 200: message, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await peers.media.deleteLibraryItem({ key: req.params.key }, { requestId: req.id });
      return { message: 'Library item removed' };
    },
  );
};
