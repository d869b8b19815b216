import multipart from '@fastify/multipart';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { toJobRequestMessage } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { JobStatusViews } from '../../domain/job-status.js';
import type { LiveJobs } from '../../domain/live-jobs.js';
import type { UploadsService } from '../../domain/uploads.service.js';
import type { Peers } from '../../repositories/clients.js';
import { jobStatusFacts } from '../../repositories/jobs.js';
import { callerOf } from './auth.js';
import { RATE_LIMITS } from './security.js';
import { errors, jobRequestSchema, jobStatus, uploadResult, uuidParams } from './schemas.js';

export interface AssemblyDeps {
  peers: Peers;
  uploads: UploadsService;
  views: JobStatusViews;
  /** Status of live jobs heard from the orchestrator: a poll of a live job needs no gRPC call. */
  live: LiveJobs;
}

/**
 * POST /uploads/file, POST /jobs/assemble, GET /jobs/:id/status, GET /downloads/:id. Every route
 * acts for the signed-in user on their own things.
 */
export const assemblyRoutes: FastifyPluginAsyncZod<AssemblyDeps> = async (app, { peers, uploads, views, live }) => {
  // Multipart parsing (and its per-request hooks: a close listener, temp-file cleanup) only where
  // a file is uploaded, not on every route of this plugin (the job status is polled).
  await app.register(async (uploadScope) => {
    const scope = uploadScope.withTypeProvider<ZodTypeProvider>();
    await scope.register(multipart, { limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024 } });

    scope.post(
      '/uploads/file',
      {
        config: { access: 'user', rateLimit: RATE_LIMITS.uploads },
        schema: {
          summary: 'Upload one video or audio file (multipart/form-data, field "file")',
          consumes: ['multipart/form-data'],
          response: { 201: uploadResult, ...errors(400, 401, 413, 429) },
        },
      },
      async (req, reply) => {
        const caller = callerOf(req);
        if (!req.isMultipart())
          throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Send the file as multipart/form-data in the field "file".', 'not_multipart');
        const limit = await uploads.capFor(caller);
        const part = await req.file({ limits: { fileSize: limit.capBytes, files: 1 } });
        if (!part || part.fieldname !== 'file')
          throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'No file was uploaded (expected the field "file").', 'no_file');
        const item = await uploads.upload(caller, { filename: part.filename, contentType: part.mimetype, body: part.file }, limit);
        return reply.status(201).send({
          object_key: item.objectKey,
          kind: item.kind === 'audio' ? 'audio' : 'video',
          display_name: item.displayName,
          size_bytes: item.sizeBytes,
          duration_sec: item.durationSec,
          width: item.width,
          height: item.height,
        });
      },
    );
  });

  app.post(
    '/jobs/assemble',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.jobs },
      schema: {
        summary: 'Create a reel from uploaded files (charged once per Idempotency-Key)',
        body: jobRequestSchema,
        headers: z.object({ 'idempotency-key': z.string().max(200).optional() }),
        response: { 200: z.object({ job_id: z.string() }).meta({ id: 'JobCreated' }), ...errors(400, 401, 402, 404, 413, 422, 429) },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const r = await peers.jobs.createJob(
        {
          ownerId: caller.id,
          unlimited: caller.unlimited,
          request: toJobRequestMessage(req.body),
          idempotencyKey: req.headers['idempotency-key'] ?? '',
        },
        { requestId: req.id },
      );
      app.accountChanged(caller.id); // the reservation changed the credits or the free video
      return { job_id: r.jobId };
    },
  );

  app.get(
    '/jobs/:id/status',
    {
      config: { access: 'user' },
      schema: { summary: "A job's status", params: uuidParams, response: { 200: jobStatus, ...errors(400, 401, 404) } },
    },
    async (req) => {
      const ownerId = callerOf(req).id;
      let facts = live.get(req.params.id, ownerId);
      if (!facts) {
        facts = jobStatusFacts(await peers.jobs.getJob({ jobId: req.params.id, ownerId }, { requestId: req.id }));
        live.fetched(ownerId, facts);
      }
      return views.view(facts);
    },
  );

  app.get(
    '/downloads/:id',
    {
      config: { access: 'user' },
      schema: {
        summary: "Redirects to a signed link to the job's reel",
        params: uuidParams,
        response: { 302: z.undefined(), ...errors(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      const job = await peers.jobs.getJob({ jobId: req.params.id, ownerId: callerOf(req).id }, { requestId: req.id });
      const facts = jobStatusFacts(job);
      const { status, download_url } = await views.view(facts);
      // Deleting a reel removes its objects (media-library); its job stays 'completed', with no link.
      if (status === 'completed' && !download_url)
        throw new DomainError(ErrorCode.NOT_FOUND, 'This reel was deleted and can no longer be downloaded.', 'reel_not_found');
      if (!download_url) throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'This video is not ready yet.', 'not_ready');
      return reply.redirect(download_url, 302);
    },
  );
};
