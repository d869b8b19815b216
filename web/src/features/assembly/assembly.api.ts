import { io, type Socket } from 'socket.io-client';
import { api } from '../../app/api';

export type Pacing = 'relaxed' | 'standard' | 'high-energy';

/** The spec's assembly job request (section 3). */
export interface JobRequest {
  media_files: string[];
  music_file?: string;
  output_filename: string;
  pacing_preset: Pacing;
  enable_beat_mapping: boolean;
  enable_intelligence: boolean;
  title_config: {
    enabled: boolean;
    text: string;
    font: 'Roboto-Bold.ttf' | 'Arial-Bold.ttf' | 'Helvetica-Bold.ttf';
    font_size: number;
    position: 'top' | 'center' | 'bottom';
  };
  enable_fades: boolean;
  fade_in_duration_sec: number;
  fade_out_duration_sec: number;
  enable_letterbox: boolean;
  get_footage_offers: boolean;
}

export type JobStatusName = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobStatus {
  status: JobStatusName;
  message: string;
  progress: number;
  download_url: string | null;
  /** True while the socket delivers updates; the page polls when it is false. */
  live?: boolean;
}

export const isFinal = (s?: JobStatus) => s?.status === 'failed' || (s?.status === 'completed' && Boolean(s.download_url));

const assemblyApi = api.injectEndpoints({
  endpoints: (build) => ({
    estimate: build.query<{ credits: number }, { pacing_preset: Pacing; has_music: boolean; total_source_bytes: number }>({
      query: (body) => ({ url: '/billing/estimate', method: 'POST', body }),
    }),
    createJob: build.mutation<{ job_id: string }, { request: JobRequest; idempotencyKey: string }>({
      query: ({ request, idempotencyKey }) => ({
        url: '/jobs/assemble',
        method: 'POST',
        body: request,
        headers: { 'idempotency-key': idempotencyKey },
      }),
      // One credit use is confirmed: the user's credits and free video change.
      invalidatesTags: ['User'],
    }),
    jobStatus: build.query<JobStatus, string>({
      query: (id) => `/jobs/${id}/status`,
      /**
       * Live updates: a socket joins the job's room (token checked at the handshake). Up to 5
       * reconnect attempts 3 s apart; while it is down the page polls every 2 s. Updates after
       * completion or failure are ignored.
       */
      async onCacheEntryAdded(jobId, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, getState }) {
        const token = (getState() as unknown as { session: { token: string | null } }).session.token;
        let socket: Socket | undefined;
        try {
          await cacheDataLoaded;
          socket = io({
            path: '/ws',
            auth: { token },
            query: { job_id: jobId },
            reconnectionAttempts: 5,
            reconnectionDelay: 3000,
            transports: ['websocket', 'polling'],
          });
          const apply = (m: { data: Partial<JobStatus> & { status: JobStatusName } }) =>
            updateCachedData((draft) => {
              if (isFinal(draft)) return;
              draft.status = m.data.status;
              if (typeof m.data.progress === 'number') draft.progress = Math.max(draft.progress, m.data.progress);
              if (m.data.message !== undefined) draft.message = m.data.message;
              if (m.data.download_url !== undefined) draft.download_url = m.data.download_url;
            });
          socket.on('connect', () => {
            socket!.emit('ping');
            updateCachedData((d) => void (d.live = true));
          });
          socket.on('disconnect', () => updateCachedData((d) => void (d.live = false)));
          socket.on('job_update', apply);
          socket.on('job_status', apply);
        } catch {
          // the entry went away before the first answer
        }
        await cacheEntryRemoved;
        socket?.close();
      },
    }),
  }),
});

export const { useEstimateQuery, useCreateJobMutation, useJobStatusQuery } = assemblyApi;

export interface UploadResult {
  object_key: string;
  kind: 'video' | 'audio';
  display_name: string;
  size_bytes: number;
  duration_sec: number;
}

/** Uploads one file with progress (fetch has no upload progress, XHR has). */
export function uploadFile(file: File, token: string | null, onProgress: (fraction: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/uploads/file');
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: { detail?: string } & Partial<UploadResult> = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // not JSON
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as UploadResult);
      else reject(new Error(body.detail || 'Upload failed'));
    };
    xhr.onerror = () => reject(new Error('Upload failed'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
