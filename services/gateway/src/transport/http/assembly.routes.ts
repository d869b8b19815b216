import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { analysisDoc, isMusicAnalysis, planMusicToWire, toJobRequestMessage, type media, type MusicAnalysisDoc } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { finishedCacheControl, notModified, type CachedStatus, type FinishedJobs } from '../../domain/finished-jobs.js';
import { LINK_SECONDS, jobStatuses, type JobStatusViews, type LinkSigner } from '../../domain/job-status.js';
import type { LiveJobs } from '../../domain/live-jobs.js';
import { previewPlan } from '../../domain/plan-preview.js';
import { planPreviewPorts } from '../../repositories/plan-preview.js';
import type { UploadsService } from '../../domain/uploads.service.js';
import type { Peers } from '../../repositories/clients.js';
import { jobStatusFacts } from '../../repositories/jobs.js';
import { callerOf } from './auth.js';
import { cleanLine } from './input-text.js';
import { RATE_LIMITS } from './security.js';
import {
  errors,
  jobList,
  jobListQuery,
  jobRequestSchema,
  jobStatus,
  planRequest,
  planResult,
  tempoCorrectionRequest,
  uploadInfo,
  uploadInfoQuery,
  uploadResult,
  uuidParams,
} from './schemas.js';

export interface AssemblyDeps {
  peers: Peers;
  uploads: UploadsService;
  views: JobStatusViews;
  /** Status of live jobs heard from the orchestrator: a poll of a live job needs no gRPC call. */
  live: LiveJobs;
  /** Finished jobs' status views: a poll of a finished job needs no call, no stat, no signing. */
  finished: FinishedJobs;
  /** Signed links to thumbnails and segment frames (object storage). */
  signer: LinkSigner;
}

/**
 * A music item's analysis (the engine's MusicAnalysis, the user's corrections applied) and
 * waveform, as the timeline wants them: the plan preview's music (proto's `planMusicToWire`, one
 * mapping) without the song's length and form. An analysis that is not a music analysis counts as
 * none (no beats, tempo 0).
 */
export function musicView(m: Pick<media.MediaItem, 'analysis' | 'peaks' | 'analysedBpm' | 'tempoCorrections'>) {
  const doc = analysisDoc(m.analysis);
  const a: Partial<MusicAnalysisDoc> = isMusicAnalysis(doc) ? doc : {};
  const {
    duration_sec: _length,
    sections: _form,
    ...view
  } = planMusicToWire({
    durationSec: 0,
    tempoBpm: a.bpm ?? 0,
    beats: a.beats ?? [],
    downbeats: a.bars ?? [],
    peaks: m.peaks,
    beatsPerBar: a.beatsPerBar ?? 4,
    analysedBpm: m.analysedBpm || (a.bpm ?? 0),
    tempoCorrections: m.tempoCorrections.map((c) => c.kind),
    sections: [],
  });
  return view;
}

/** POST /uploads/file's body in the document (the route reads the multipart stream itself). */
const uploadBody = {
  contentType: 'multipart/form-data',
  description: 'One file in the field "file": a video (MP4, MOV, AVI, MKV, WebM) or audio (MP3, WAV, AAC, M4A), at most your plan allows',
  schema: {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file, with its name' } },
  },
};

const ANALYSIS: Record<string, 'pending' | 'ready' | 'failed'> = { pending: 'pending', done: 'ready', failed: 'failed' };

/**
 * POST /uploads/file, POST /jobs/assemble, GET /jobs/:id/status, GET /downloads/:id. Every route
 * acts for the signed-in user on their own things.
 */
export const assemblyRoutes: FastifyPluginAsyncZod<AssemblyDeps> = async (app, { peers, uploads, views, live, finished, signer }) => {
  const statusOf = jobStatuses({
    views,
    live,
    finished,
    fetch: async (jobId, ownerId, requestId?: string) => jobStatusFacts(await peers.jobs.getJob({ jobId, ownerId }, { requestId })),
  });
  const link = (key: string) => (key ? signer.signedUrl(key, { expiresInSeconds: LINK_SECONDS }) : Promise.resolve(null));

  // Multipart parsing (and its per-request hooks: a close listener, temp-file cleanup) only where
  // a file is uploaded, not on every route of this plugin (the job status is polled).
  await app.register(async (uploadScope) => {
    const scope = uploadScope.withTypeProvider<ZodTypeProvider>();
    await scope.register(multipart, { limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024 } });

    scope.post(
      '/uploads/file',
      {
        config: { access: 'user', rateLimit: RATE_LIMITS.uploads, documentedBody: uploadBody },
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
        let filename: string;
        try {
          filename = cleanLine(part.filename, 'The file name');
        } catch (e) {
          part.file.resume(); // drain the refused file: nothing of it is stored
          throw e;
        }
        const item = await uploads.upload(caller, { filename, contentType: part.mimetype, body: part.file }, limit).catch((e: unknown) => {
          // Past the limit: answer now and close the connection, so the rest is never read.
          if (isDomainError(e) && e.code === ErrorCode.PAYLOAD_TOO_LARGE) void reply.header('connection', 'close');
          throw e;
        });
        return reply.status(201).send({
          object_key: item.objectKey,
          kind: item.kind === 'audio' ? 'audio' : 'video',
          display_name: item.displayName,
          size_bytes: item.sizeBytes,
          duration_sec: item.durationSec,
          width: item.width,
          height: item.height,
          thumbnail_url: item.kind === 'audio' ? null : await link(item.thumbnailKey),
        });
      },
    );
  });

  app.get(
    '/uploads/info',
    {
      config: { access: 'user' },
      schema: {
        summary: "An upload's (or library item's) probe, thumbnail and analysis state; music gets its beats and waveform once analysed",
        querystring: uploadInfoQuery,
        response: { 200: uploadInfo, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const { items } = await peers.media.getMedia({ ownerId: callerOf(req).id, objectKeys: [req.query.key] }, { requestId: req.id });
      const m: media.MediaItem = items[0]!;
      const analysis = ANALYSIS[m.analysisStatus] ?? 'pending';
      const kind = m.kind === 'audio' ? ('audio' as const) : ('video' as const);
      return {
        object_key: m.objectKey,
        kind,
        duration_sec: m.durationSec,
        width: m.width,
        height: m.height,
        thumbnail_url: kind === 'video' ? await link(m.thumbnailKey) : null,
        analysis,
        ...(kind === 'audio' && analysis === 'ready' ? { music: musicView(m) } : {}),
      };
    },
  );

  app.post(
    '/uploads/tempo',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.plans },
      schema: {
        summary:
          "Corrects a music track's beats for you (halve, double, shift half a beat, tap tempo, or reset), kept for next time; plans use them without analysing again",
        body: tempoCorrectionRequest,
        response: { 200: uploadInfo, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      // The schema says a tap has its taps and nothing else has any.
      const { key, action } = req.body;
      const taps = req.body.action === 'tap' ? req.body.taps : undefined;
      const m = await peers.media.correctTempo(
        {
          ownerId: callerOf(req).id,
          objectKey: key,
          reset: action === 'reset',
          correction: action === 'reset' ? undefined : { kind: action, taps: taps ?? [] },
        },
        { requestId: req.id },
      );
      return {
        object_key: m.objectKey,
        kind: 'audio' as const,
        duration_sec: m.durationSec,
        width: m.width,
        height: m.height,
        thumbnail_url: null,
        analysis: 'ready' as const,
        music: musicView(m),
      };
    },
  );

  app.post(
    '/jobs/plan',
    {
      // A long reel's preview cuts a timeline frame per moment (hundreds for ten minutes).
      config: { access: 'user', rateLimit: RATE_LIMITS.plans, deadlineMs: 60_000 },
      schema: {
        summary: 'The edit plan and estimate for a request, or a plan with segments re-rolled (never reserves or charges)',
        body: planRequest,
        response: { 200: planResult, ...errors(400, 401, 404, 409, 413, 422, 429) },
      },
    },
    async (req) => {
      const { reroll, locked, seed, ...request } = req.body;
      return previewPlan(planPreviewPorts(peers, signer, req.id), callerOf(req), { request, reroll, locked, seed });
    },
  );

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
    '/jobs',
    {
      config: { access: 'user' },
      schema: {
        summary: "The caller's jobs, newest first: active=1 for the queued and processing ones, otherwise the last 20",
        querystring: jobListQuery,
        response: { 200: jobList, ...errors(400, 401) },
      },
    },
    async (req) => {
      const active = req.query.active === '1' || req.query.active === 'true';
      const { jobs } = await peers.jobs.listJobs({ ownerId: callerOf(req).id, activeOnly: active, limit: 20 }, { requestId: req.id });
      return { jobs: await Promise.all(jobs.map((j) => views.view(jobStatusFacts(j)))) };
    },
  );

  app.post(
    '/jobs/:id/cancel',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.plans },
      schema: {
        summary: 'Cancels a queued or processing job: the render stops and the reservation is released (409 once finished)',
        params: uuidParams,
        response: { 200: jobStatus, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const job = await peers.jobs.cancelJob({ jobId: req.params.id, ownerId: caller.id }, { requestId: req.id });
      app.accountChanged(caller.id); // the reservation was given back
      const facts = jobStatusFacts(job);
      live.fetched(caller.id, facts);
      return views.view(facts);
    },
  );

  // A finished job: validators, so a polling client gets 304 while nothing changed, and its JSON as
  // serialised once (the same the schema gives); through the untyped reply, as a 304 has no body.
  const sendFinished = (req: FastifyRequest, reply: FastifyReply, s: CachedStatus) => {
    void reply.header('etag', s.etag).header('cache-control', finishedCacheControl(s));
    if (notModified(req.headers['if-none-match'], s.etag)) void reply.code(304).send();
    else void reply.type('application/json; charset=utf-8').send(s.json);
  };
  app.get(
    '/jobs/:id/status',
    {
      config: { access: 'user' },
      schema: {
        summary: "A job's status",
        description:
          "A finished job's answer carries an ETag and Cache-Control: private, max-age (0 while it holds a download link); sent back in If-None-Match, it is answered 304 while nothing changed.",
        params: uuidParams,
        response: {
          200: jobStatus,
          304: z.null().describe('Not modified: If-None-Match names the current ETag of a finished job (no body)'),
          ...errors(400, 401, 404),
        },
      },
    },
    (req, reply) => {
      const ownerId = callerOf(req).id;
      // The route every client polls: a finished job in memory is answered without a promise.
      const cached = finished.get(req.params.id, ownerId);
      if (cached) return sendFinished(req, reply as FastifyReply, cached);
      return statusOf(req.params.id, ownerId, req.id).then((s) => (s.etag ? sendFinished(req, reply as FastifyReply, s) : s.view));
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
