import { DomainError, ErrorCode, type ObjectStore } from '@reelsmith/kit';
import type { media } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { libraryTitle } from '../../domain/library-title.js';
import { selectLibraryClips } from '../../domain/library-selection.js';
import type { Peers } from '../../repositories/clients.js';
import { librarySelectionPorts } from '../../repositories/library-selection.js';
import { callerOf } from './auth.js';
import { identifier } from './input-text.js';
import { binary } from './contract.js';
import { errors, libraryKeyParams, pageQuery } from './schemas.js';
import { sendObject } from './send-object.js';

type Item = media.LibraryItem;

const API = '/api/v1';
/** Library objects are named by their content hash: a URL's bytes never change. */
const IMMUTABLE = 'public, max-age=604800, immutable';

const listQuery = pageQuery(1000).extend({
  q: z.string().max(200).default('').describe('Case-insensitive, on filename or category; blank is ignored'),
  category: z.string().max(60).default(''),
});

const videoFile = z
  .object({
    key: z.string(),
    filename: z.string(),
    category: z.string(),
    size: z.number().int().describe('Bytes'),
    url: z.string().describe('The clip itself (supports HTTP Range)'),
    thumbnail_url: z.string(),
    preview_frames: z.array(z.string()).describe('Three frames for a hover preview'),
    duration: z.number().describe('Seconds'),
  })
  .meta({ id: 'VideoLibraryFile' });

const videoList = z
  .object({ files: z.array(videoFile), categories: z.array(z.string()), total: z.number().int().describe('How many match') })
  .meta({ id: 'VideoLibraryList' });

const userVideoList = z
  .object({
    files: z.array(videoFile.extend({ s3_key: z.string().describe('What a job request names in media_files') })),
    categories: z.array(z.string()),
    total: z.number().int(),
  })
  .meta({ id: 'VideoLibraryUserList' });

const musicFile = z
  .object({
    key: z.string(),
    filename: z.string().describe('The file the track was imported from; what POST /music-library/select names'),
    title: z.string().describe('What to call the track: its file name without the extension'),
    category: z.string(),
    size: z.number().int(),
    duration: z.number(),
    bpm: z
      .number()
      .describe('Tempo; 0 when the track has no steady beat. For a signed-in caller, after their tempo corrections of the track'),
  })
  .meta({ id: 'MusicLibraryFile' });

// Same shape as the video lists by design: one named schema per OpenAPI component.
const musicList = z
  .object({ files: z.array(musicFile), categories: z.array(z.string()), total: z.number().int() })
  .meta({ id: 'MusicLibraryList' });

const userMusicList = z
  .object({
    files: z.array(musicFile.extend({ s3_key: z.string().describe('What a job request names in music_file') })),
    categories: z.array(z.string()),
    total: z.number().int(),
  })
  .meta({ id: 'MusicLibraryUserList' });

const musicAnalysis = z
  .object({
    key: z.string(),
    filename: z.string(),
    duration: z.number(),
    bpm: z.number(),
    beats: z.array(z.number()).describe('Beat times in seconds'),
    peaks: z.array(z.number()).describe('Peak amplitude (0..1) of equal slices of the track, for a waveform'),
  })
  .meta({ id: 'MusicAnalysis' });

const videoView = (i: Item) => ({
  key: i.key,
  filename: i.filename,
  category: i.category,
  size: Number(i.sizeBytes),
  url: `${API}/video-library/file/${i.key}`,
  thumbnail_url: `${API}/video-library/thumbnail/${i.key}`,
  preview_frames: i.previewFrameKeys.map((_, n) => `${API}/video-library/frame/${i.key}/${n}`),
  duration: i.durationSec,
});

const musicView = (i: Item) => ({
  key: i.key,
  filename: i.filename,
  title: libraryTitle(i.filename),
  category: i.category,
  size: Number(i.sizeBytes),
  duration: i.durationSec,
  bpm: i.bpm,
});

/** What the list routes of one library need (listRoutes): its kind, item view and list schemas. */
interface LibraryLists<V> {
  kind: 'video' | 'audio';
  view: (i: Item) => V;
  list: z.ZodType<{ files: V[]; categories: string[]; total: number }>;
  userList: z.ZodType<{ files: Array<V & { s3_key: string }>; categories: string[]; total: number }>;
}
const videoLists: LibraryLists<ReturnType<typeof videoView>> = { kind: 'video', view: videoView, list: videoList, userList: userVideoList };
const musicLists: LibraryLists<ReturnType<typeof musicView>> = { kind: 'audio', view: musicView, list: musicList, userList: userMusicList };

const VIDEO_TYPES = { mp4: 'video/mp4', mov: 'video/quicktime', mkv: 'video/x-matroska', webm: 'video/webm', avi: 'video/x-msvideo' };
const AUDIO_TYPES = { mp3: 'audio/mpeg', wav: 'audio/wav', aac: 'audio/aac', m4a: 'audio/mp4' };
/** A library track is audio, or an MP4/MOV file holding only audio (the import takes those too). */
const TRACK_TYPES = { ...AUDIO_TYPES, mp4: VIDEO_TYPES.mp4, mov: VIDEO_TYPES.mov };
const mimeOf = (key: string) =>
  (({ ...VIDEO_TYPES, ...AUDIO_TYPES, jpg: 'image/jpeg' }) as Record<string, string>)[key.split('.').pop()!.toLowerCase()] ??
  'application/octet-stream';
/** A library file as sent: its type from its name (an unknown extension: octet-stream). */
const libraryFile = (what: string, types: Record<string, string>) =>
  binary(what, ...new Set([...Object.values(types), 'application/octet-stream']));
const jpeg = (what: string) => binary(what, 'image/jpeg');

/**
 * The stock video and music libraries: public browsing (lists, thumbnails, clips and previews by
 * URL, cacheable) and selection for a job by signed-in users (capped by plan). The admins' uploads
 * and removals are admin/library.routes.ts.
 */
export const mediaLibraryRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  const one = async (kind: 'video' | 'audio', key: string, requestId: string) =>
    (await peers.media.getLibraryItems({ kind, keys: [key] }, { requestId })).items[0]!;
  /** A library file itself: cacheable for good, with HTTP Range. */
  const sendItem = (reply: FastifyReply, i: Item, range: string | undefined) =>
    sendObject(store, reply, { key: i.objectKey, size: Number(i.sizeBytes), type: mimeOf(i.objectKey), range, cacheControl: IMMUTABLE });
  /**
   * A page of a library. A music list shows a signed-in caller's tempo corrections (their own
   * BPM), so it differs by the Authorization header and is never stored for others.
   */
  const list = async (kind: 'video' | 'audio', q: z.infer<typeof listQuery>, req: FastifyRequest, reply: FastifyReply) => {
    const ownerId = kind === 'audio' ? (req.caller?.id ?? '') : '';
    if (kind === 'audio') {
      void reply.header('vary', 'Authorization');
      if (ownerId) void reply.header('cache-control', 'private, no-cache');
    }
    return peers.media.listLibrary(
      { kind, q: q.q, category: q.category, limit: q.limit, offset: q.offset, ownerId },
      { requestId: req.id },
    );
  };

  /**
   * A library's two lists: public (no sign-in, for browsing) and for signed-in users, with the
   * object keys a job uses.
   */
  const listRoutes = <V extends object>(path: string, name: string, lists: LibraryLists<V>) => {
    app.get(
      `/${path}-detailed`,
      {
        schema: {
          summary: `${name}, paged and searchable (no sign-in)`,
          querystring: listQuery,
          response: { 200: lists.list, ...errors(400) },
        },
      },
      async (req, reply) => {
        const r = await list(lists.kind, req.query, req, reply);
        return { files: r.items.map(lists.view), categories: r.categories, total: r.total };
      },
    );
    app.get(
      `/${path}`,
      {
        config: { access: 'user' },
        schema: {
          summary: `${name} with the object keys a job uses`,
          querystring: listQuery,
          response: { 200: lists.userList, ...errors(400, 401) },
        },
      },
      async (req, reply) => {
        const r = await list(lists.kind, req.query, req, reply);
        return { files: r.items.map((i) => ({ ...lists.view(i), s3_key: i.objectKey })), categories: r.categories, total: r.total };
      },
    );
  };

  listRoutes('video-library', 'The stock video library', videoLists);

  app.post(
    '/video-library/select',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Select library clips for a reel (at most your plan allows)',
        body: z.object({ video_keys: z.array(identifier(64, 'A library key')).min(1).max(5000) }).strict(),
        response: {
          200: z
            .object({ selected_videos: z.array(z.object({ key: z.string(), object_key: z.string(), filename: z.string() })) })
            .meta({ id: 'SelectedVideos' }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (req) => {
      const clips = await selectLibraryClips(librarySelectionPorts(peers, req.id), callerOf(req), req.body.video_keys);
      return { selected_videos: clips.map((c) => ({ key: c.key, object_key: c.objectKey, filename: c.filename })) };
    },
  );

  app.get(
    '/video-library/thumbnail/:key',
    {
      schema: {
        summary: "A library clip's thumbnail (JPEG)",
        params: libraryKeyParams,
        response: { 200: jpeg('The thumbnail'), ...errors(404) },
      },
    },
    async (req, reply) => {
      const i = await one('video', req.params.key, req.id);
      void reply.header('cache-control', IMMUTABLE).type('image/jpeg');
      return reply.send(await store.get(i.thumbnailKey));
    },
  );

  app.get(
    '/video-library/frame/:key/:n',
    {
      schema: {
        summary: 'One of the three hover-preview frames of a library clip (JPEG)',
        params: libraryKeyParams.extend({ n: z.coerce.number().int().min(0).max(2) }),
        response: { 200: jpeg('The frame'), ...errors(404) },
      },
    },
    async (req, reply) => {
      const i = await one('video', req.params.key, req.id);
      const key = i.previewFrameKeys[req.params.n];
      if (!key) throw new DomainError(ErrorCode.NOT_FOUND, 'No such preview frame.', 'not_found');
      void reply.header('cache-control', IMMUTABLE).type('image/jpeg');
      return reply.send(await store.get(key));
    },
  );

  app.get(
    '/video-library/file/:key',
    {
      schema: {
        summary: 'A library clip (HTTP Range supported)',
        params: libraryKeyParams,
        response: { 200: libraryFile('The clip', VIDEO_TYPES), 206: libraryFile('The range asked for', VIDEO_TYPES), ...errors(404, 416) },
      },
    },
    async (req, reply) => {
      const i = await one('video', req.params.key, req.id);
      return sendItem(reply, i, req.headers.range);
    },
  );

  listRoutes('music-library', 'The music library', musicLists);

  app.post(
    '/music-library/select',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Select a library track (by file name) as the music of a reel',
        body: z.object({ filename: identifier(200, 'The file name').min(1, 'The file name must not be empty') }).strict(),
        response: { 200: z.object({ object_key: z.string(), key: z.string() }).meta({ id: 'SelectedMusic' }), ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const i = await peers.media.findMusic({ filename: req.body.filename }, { requestId: req.id });
      return { object_key: i.objectKey, key: i.key };
    },
  );

  // Route declarations look alike by design (fastify: each route states its access, schema and handler).
  app.post(
    '/music-library/cache/:key',
    {
      config: { access: 'user' },
      schema: {
        summary: "A library track's preview link",
        params: libraryKeyParams,
        response: { 200: z.object({ preview_url: z.string() }).meta({ id: 'MusicPreview' }), ...errors(401, 404) },
      },
    },
    async (req) => {
      const i = await one('audio', req.params.key, req.id);
      return { preview_url: `${API}/music-library/preview/${i.key}` };
    },
  );

  app.get(
    '/music-library/preview/:key',
    {
      schema: {
        summary: 'Streams a library track (HTTP Range supported, 206)',
        params: libraryKeyParams,
        response: { 200: libraryFile('The track', TRACK_TYPES), 206: libraryFile('The range asked for', TRACK_TYPES), ...errors(404, 416) },
      },
    },
    async (req, reply) => {
      const i = await one('audio', req.params.key, req.id);
      return sendItem(reply, i, req.headers.range);
    },
  );

  app.get(
    '/music-library/analysis/:key',
    {
      schema: {
        summary: "A library track's tempo, beats and waveform",
        params: libraryKeyParams,
        response: { 200: musicAnalysis, ...errors(404) },
      },
    },
    async (req, reply) => {
      const r = await peers.media.musicAnalysis({ key: req.params.key }, { requestId: req.id });
      void reply.header('cache-control', 'public, max-age=3600');
      const i = r.item!;
      return { key: i.key, filename: i.filename, duration: i.durationSec, bpm: i.bpm, beats: r.beats, peaks: r.peaks };
    },
  );
};
