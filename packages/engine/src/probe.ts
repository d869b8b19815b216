import fs from 'node:fs';
import path from 'node:path';
import type { ProbedMedia } from '@reelsmith/proto';
import { EngineError } from './errors.js';
import { execMedia } from './exec.js';

/**
 * What the engine needs to know of an input, read by ffprobe: proto's `ProbedMedia` (its fields
 * are defined in proto/reelsmith/engine/v1/probe.proto, a chunk task carries it) and the local file.
 */
export type MediaInfo = ProbedMedia & { path: string };

/** Hard limits checked before anything is decoded. */
export const LIMITS = {
  maxStreams: 16,
  maxPixels: 8192 * 4352,
  maxDimension: 8192,
  minDurationSec: 0.2,
  maxDurationSec: 4 * 3600,
};

/**
 * Container formats we accept, by ffprobe's demuxer name (the format whitelist, so a file cannot
 * pick an exotic demuxer such as concat, hls or image2 that opens other files or URLs).
 */
export const FORMAT_WHITELIST = [
  'mov',
  'mp4',
  'm4a',
  '3gp',
  '3g2',
  'mj2',
  'matroska',
  'webm',
  'avi',
  'mp3',
  'wav',
  'aac',
  'flac',
  'ogg',
  'mpegts',
  'mpeg',
  'asf',
  'flv',
];

/**
 * Given before every `-i`: local files (and pipes) only, and only the whitelisted demuxers, so
 * a crafted file cannot open URLs or other files (HLS, concat, image sequences...).
 */
export const INPUT_GUARD = ['-protocol_whitelist', 'file,pipe', '-format_whitelist', FORMAT_WHITELIST.join(',')];

interface Raw {
  format?: { format_name?: string; duration?: string; nb_streams?: number };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    sample_aspect_ratio?: string;
    r_frame_rate?: string;
    avg_frame_rate?: string;
    duration?: string;
    channels?: number;
    sample_rate?: string;
    tags?: { rotate?: string };
    side_data_list?: Array<{ rotation?: number }>;
    disposition?: { attached_pic?: number };
  }>;
}

const ratio = (s?: string) => {
  const [a, b] = (s ?? '').split(/[:/]/).map(Number);
  return a && b ? a / b : 0;
};

export type ProbeKind = 'clip' | 'music' | 'any';

/** End time (s) of the last packet of a stream, reading packets without decoding. */
async function lastPacketEnd(abs: string, stream: string, timeoutMs: number): Promise<number> {
  let tail = '';
  await execMedia(
    'ffprobe',
    [
      '-v',
      'error',
      ...INPUT_GUARD,
      '-select_streams',
      stream,
      '-show_entries',
      'packet=pts_time,duration_time',
      '-of',
      'csv=p=0',
      `file:${abs}`,
    ],
    // Only the last lines matter; a long track prints one line per packet.
    { timeoutMs, onStdout: (c) => (tail = (tail + c.toString()).slice(-512)) },
  );
  let end = 0;
  for (const line of tail.split('\n').slice(1)) {
    const [pts, dur] = line.split(',').map(Number);
    if (Number.isFinite(pts) && Number.isFinite(dur)) end = Math.max(end, pts! + dur!);
  }
  return end;
}

/** Probes a local file; every unsuitable input fails here with a typed error and a clear message. */
export async function probe(file: string, kind: ProbeKind, timeoutMs = 20_000): Promise<MediaInfo> {
  const name = path.basename(file);
  // Local files only: an absolute, existing, regular file. Never a URL.
  if (/^[a-z][a-z0-9+.-]*:/i.test(file) && !/^[a-z]:[\\/]/i.test(file))
    throw new EngineError('INPUT_NOT_FOUND', `${name}: only local files can be used`, file);
  const abs = path.resolve(file);
  const st = await fs.promises.stat(abs).catch(() => null);
  if (!st || !st.isFile()) throw new EngineError('INPUT_NOT_FOUND', `${name}: file not found`, file);
  if (st.size === 0) throw new EngineError('INPUT_EMPTY', `${name}: the file is empty`, file);

  let out = '';
  let estimated = false;
  try {
    const { stderrTail } = await execMedia(
      'ffprobe',
      ['-v', 'warning', ...INPUT_GUARD, '-show_format', '-show_streams', '-of', 'json', `file:${abs}`],
      { timeoutMs, onStdout: (c) => (out += c.toString()) },
    );
    estimated = stderrTail.includes('Estimating duration from bitrate');
  } catch (e) {
    if (e instanceof EngineError && e.code === 'TIMEOUT') throw new EngineError('NOT_MEDIA', `${name}: could not be read in time`, file);
    throw new EngineError('NOT_MEDIA', `${name}: not a video or audio file we can read`, file);
  }
  let raw: Raw;
  try {
    raw = JSON.parse(out) as Raw;
  } catch {
    throw new EngineError('NOT_MEDIA', `${name}: not a video or audio file we can read`, file);
  }
  const streams = raw.streams ?? [];
  if (!raw.format || streams.length === 0) throw new EngineError('NOT_MEDIA', `${name}: not a video or audio file we can read`, file);
  if (streams.length > LIMITS.maxStreams) throw new EngineError('LIMIT_EXCEEDED', `${name}: too many streams (${streams.length})`, file);

  const v = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const a = streams.find((s) => s.codec_type === 'audio');
  const duration = Number(raw.format.duration ?? v?.duration ?? a?.duration ?? 0);
  if (!Number.isFinite(duration) || duration < LIMITS.minDurationSec)
    throw new EngineError('NOT_MEDIA', `${name}: too short or no duration`, file);
  if (duration > LIMITS.maxDurationSec)
    throw new EngineError('LIMIT_EXCEEDED', `${name}: longer than ${LIMITS.maxDurationSec / 3600} hours`, file);

  const info: MediaInfo = { path: abs, sizeBytes: st.size, durationSec: duration, formatName: raw.format.format_name ?? '' };
  if (v) {
    const w = v.width ?? 0;
    const h = v.height ?? 0;
    if (!w || !h) throw new EngineError('NOT_MEDIA', `${name}: the video stream has no size`, file);
    if (w > LIMITS.maxDimension || h > LIMITS.maxDimension || w * h > LIMITS.maxPixels)
      throw new EngineError('LIMIT_EXCEEDED', `${name}: ${w}x${h} is larger than we accept`, file);
    const rot = (((Number(v.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? v.tags?.rotate ?? 0) % 360) + 360) %
      360) as number;
    const sar = ratio(v.sample_aspect_ratio) || 1;
    const dw = Math.round(w * sar);
    const quarter = rot === 90 || rot === 270;
    const r = ratio(v.r_frame_rate);
    const avg = ratio(v.avg_frame_rate);
    info.video = {
      codec: v.codec_name ?? '',
      width: quarter ? h : dw,
      height: quarter ? dw : h,
      codedWidth: w,
      codedHeight: h,
      rotation: rot,
      sar,
      fps: avg || r || 30,
      variableFrameRate: Boolean(r && avg && Math.abs(r - avg) / r > 0.01),
    };
  }
  if (a) info.audio = { codec: a.codec_name ?? '', channels: a.channels ?? 0, sampleRate: Number(a.sample_rate ?? 0) };
  // Files without an index (raw ADTS AAC, MP3 without a Xing header, some streams) get a length
  // ffprobe only estimates from the bitrate (8.03 s of ADTS reads as 7.93 s). A reel as long as
  // its music needs the real end: the last packet's, read by demuxing without decoding.
  if (estimated) {
    const end = await lastPacketEnd(abs, v ? 'v:0' : 'a:0', timeoutMs);
    if (end >= LIMITS.minDurationSec && end <= LIMITS.maxDurationSec) info.durationSec = end;
  }

  if (kind === 'clip' && !info.video)
    throw new EngineError('NO_VIDEO', `${name}: has no video (an audio file cannot be used as a clip)`, file);
  if (kind === 'music' && !info.audio) throw new EngineError('NO_AUDIO', `${name}: has no audio track`, file);
  if (kind === 'any' && !info.video && !info.audio) throw new EngineError('NOT_MEDIA', `${name}: has neither video nor audio`, file);
  return info;
}
