import path from 'node:path';
import multipart from '@fastify/multipart';
import { DomainError, ErrorCode, newObjectKey, type ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsync } from 'fastify';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';

export interface AssemblyDeps {
  peers: Peers;
  store: ObjectStore;
}

const LINK_SECONDS = 3600;

/**
 * POST /uploads/file, POST /jobs/assemble, GET /jobs/:id/status, GET /downloads/:id,
 * GET /library, DELETE /library/:id. Every route acts for the signed-in user on their own things.
 */
export const assemblyRoutes: FastifyPluginAsync<AssemblyDeps> = async (app, { peers, store }) => {
  await app.register(multipart, { limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024 } });

  const downloadUrl = (key: string, name: string) => store.signedUrl(key, { expiresInSeconds: LINK_SECONDS, downloadName: name });

  app.post('/uploads/file', { config: { access: 'user' } }, async (req, reply) => {
    const caller = callerOf(req);
    const { account } = await peers.billing.getAccount({ userId: caller.id, unlimited: caller.unlimited }, { requestId: req.id });
    const ent = account!.entitlements!;
    const cap = Number(ent.uploadCapBytes);
    if (!req.isMultipart())
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Send the file as multipart/form-data in the field "file".', 'not_multipart');
    const part = await req.file({ limits: { fileSize: cap, files: 1 } });
    if (!part || part.fieldname !== 'file')
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'No file was uploaded (expected the field "file").', 'no_file');
    // The key is ours; the user's file name is kept only as a display name.
    const key = newObjectKey(`uploads/${caller.id}`, path.extname(part.filename));
    await store.put(key, part.file, { contentType: part.mimetype });
    if (part.file.truncated) {
      // Never a silent truncation: the partial object goes, the user gets the plan's limit.
      await store.delete(key);
      throw new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, ent.uploadLimitMessage, 'upload_limit');
    }
    const item = await peers.media.registerUpload(
      { ownerId: caller.id, objectKey: key, displayName: part.filename, sizeCapBytes: BigInt(cap) },
      { requestId: req.id },
    );
    return reply.status(201).send({
      object_key: item.objectKey,
      kind: item.kind,
      display_name: item.displayName,
      size_bytes: Number(item.sizeBytes),
      duration_sec: item.durationSec,
      width: item.width,
      height: item.height,
    });
  });

  app.post<{ Body: Record<string, unknown>; Headers: { 'idempotency-key'?: string } }>(
    '/jobs/assemble',
    {
      config: { access: 'user' },
      schema: {
        body: { type: 'object' },
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', maxLength: 200 } } },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const r = await peers.jobs.createJob(
        {
          ownerId: caller.id,
          unlimited: caller.unlimited,
          requestJson: JSON.stringify(req.body),
          idempotencyKey: req.headers['idempotency-key'] ?? '',
        },
        { requestId: req.id },
      );
      return { job_id: r.jobId };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/jobs/:id/status',
    { config: { access: 'user' }, schema: { params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } } },
    async (req) => {
      const job = await peers.jobs.getJob({ jobId: req.params.id, ownerId: callerOf(req).id }, { requestId: req.id });
      const name = (JSON.parse(job.requestJson) as { output_filename?: string }).output_filename ?? 'reel_output.mp4';
      return {
        status: job.status,
        message: job.message,
        progress: job.progress,
        download_url: job.status === 'completed' && job.outputKey ? await downloadUrl(job.outputKey, name) : null,
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/downloads/:id',
    { config: { access: 'user' }, schema: { params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } } },
    async (req, reply) => {
      const job = await peers.jobs.getJob({ jobId: req.params.id, ownerId: callerOf(req).id }, { requestId: req.id });
      if (job.status !== 'completed' || !job.outputKey)
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'This video is not ready yet.', 'not_ready');
      const name = (JSON.parse(job.requestJson) as { output_filename?: string }).output_filename ?? 'reel_output.mp4';
      return reply.redirect(await downloadUrl(job.outputKey, name), 302);
    },
  );

  app.get<{ Querystring: { limit?: number; offset?: number } }>(
    '/library',
    {
      config: { access: 'user' },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
            offset: { type: 'integer', minimum: 0, default: 0 },
          },
        },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const { reels, total } = await peers.media.listReels(
        { ownerId: caller.id, limit: req.query.limit ?? 50, offset: req.query.offset ?? 0 },
        { requestId: req.id },
      );
      const videos = await Promise.all(
        reels.map(async (r) => ({
          id: r.id,
          title: r.title,
          description: r.description,
          created_at: new Date(Number(r.createdAtUnixMs)).toISOString(),
          download_url: await downloadUrl(r.objectKey, `${r.title.replace(/[^\w .-]/g, '_') || 'reel'}.mp4`),
          thumbnail: r.thumbnailKey ? { data: await thumbnailData(store, r.thumbnailKey), format: 'jpeg' } : null,
          duration_sec: r.durationSec,
          music_used: r.musicUsed,
          enable_beat_mapping: r.enableBeatMapping,
          enable_intelligence: r.enableIntelligence,
          pacing_preset: r.pacingPreset,
        })),
      );
      return { videos, stats: { total_videos: total }, status: 'success', message: '' };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/library/:id',
    { config: { access: 'user' }, schema: { params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } } },
    async (req) => {
      await peers.media.deleteReel({ ownerId: callerOf(req).id, reelId: req.params.id }, { requestId: req.id });
      return { message: 'Reel deleted' };
    },
  );
};

async function thumbnailData(store: ObjectStore, key: string): Promise<string | null> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of await store.get(key)) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('base64');
  } catch {
    return null;
  }
}
