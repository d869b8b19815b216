import type { Socket } from 'socket.io-client';
import { api } from '../../base/api';
import { signedOut } from '../../base/session';
import { RECONNECT_ATTEMPTS, RECONNECT_DELAY_MS, RECONNECT_SPREAD, handshakeFailure, reconnectDelay } from './reconnect';
import type { EstimateRequest, JobList, JobRequest, JobStatus, TempoCorrectionRequest, UploadInfo, UploadResult } from '../../api/types';

/** The job status as the page holds it: the server's view, plus whether the socket is delivering. */
export type LiveJobStatus = JobStatus & { live?: boolean };

export const isFinal = (s?: JobStatus) =>
  s?.status === 'failed' || s?.status === 'cancelled' || (s?.status === 'completed' && Boolean(s.download_url));

const assemblyApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** An upload's (or library item's) probe, thumbnail and analysis; music gets tempo, beats and waveform once analysed. */
    uploadInfo: build.query<UploadInfo, string>({
      query: (key) => ({ url: '/uploads/info', params: { key } }),
    }),
    /** Corrects a music track's beats (halve, double, shift, tap, reset); kept for next time. */
    correctTempo: build.mutation<UploadInfo, TempoCorrectionRequest>({
      query: (body) => ({ url: '/uploads/tempo', method: 'POST', body }),
      // The music library lists the corrected tempo of a library track.
      invalidatesTags: (_r, error) => (error ? [] : ['MusicLibrary']),
      async onQueryStarted(body, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          // The tray's tempo follows at once.
          dispatch(assemblyApi.util.upsertQueryData('uploadInfo', body.key, data));
        } catch {
          // the studio shows the server's message
        }
      },
    }),
    /** The caller's queued and processing jobs (a reload or another tab finds its running job). */
    activeJobs: build.query<JobList, void>({
      query: () => ({ url: '/jobs', params: { active: '1' } }),
      keepUnusedDataFor: 0,
    }),
    cancelJob: build.mutation<JobStatus, string>({
      query: (id) => ({ url: `/jobs/${id}/cancel`, method: 'POST' }),
      // The reservation is released: credits or the free video come back.
      invalidatesTags: ['User'],
      async onQueryStarted(id, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(assemblyApi.util.updateQueryData('jobStatus', id, (d) => ({ ...d, ...data })));
        } catch {
          // the card shows the server's message
        }
      },
    }),
    estimate: build.query<{ credits: number }, EstimateRequest>({
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
    jobStatus: build.query<LiveJobStatus, string>({
      query: (id) => `/jobs/${id}/status`,
      /**
       * Live updates: a socket joins the job's room (token checked at the handshake) and receives
       * the job's status each time the server records a change, in the same shape as this query.
       * Up to 5 reconnect attempts about 3 s apart, each spread at random (reconnect.ts); while it
       * is down the page polls every 2 s. A handshake refused as `unauthorized` signs out; `busy`
       * (the server was overloaded) keeps the session and tries again after the server's hint.
       * Updates after completion or failure are ignored.
       */
      async onCacheEntryAdded(jobId, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, getState, dispatch }) {
        const token = (getState() as unknown as { session: { token: string | null } }).session.token;
        let socket: Socket | undefined;
        let retry: ReturnType<typeof setTimeout> | undefined;
        let busyRetries = 0;
        try {
          await cacheDataLoaded;
          // socket.io's client loads with the first job watched, not with the page.
          const { io } = await import('socket.io-client');
          socket = io({
            path: '/ws',
            auth: { token },
            query: { job_id: jobId },
            reconnectionAttempts: RECONNECT_ATTEMPTS,
            reconnectionDelay: RECONNECT_DELAY_MS,
            reconnectionDelayMax: RECONNECT_DELAY_MS * 2,
            randomizationFactor: RECONNECT_SPREAD,
            transports: ['websocket', 'polling'],
          });
          const s = socket;
          // A refusal by the server's middleware is not retried by socket.io itself.
          s.on('connect_error', (e: Error & { data?: { retry_after_ms?: number } }) => {
            if (s.active) return; // a transport failure: socket.io's own jittered reconnection runs
            if (handshakeFailure(e.message) === 'signed_out') {
              if (token) dispatch(signedOut());
              return;
            }
            if (busyRetries++ >= RECONNECT_ATTEMPTS) return; // the page keeps polling
            retry = setTimeout(() => s.connect(), reconnectDelay(Math.random, e.data?.retry_after_ms ?? 0));
          });
          s.on('job_error', (m: { data?: { code?: string; retry_after_ms?: number } }) => {
            if (m.data?.code !== 'busy' || busyRetries++ >= RECONNECT_ATTEMPTS) return;
            retry = setTimeout(() => s.emit('join', jobId), reconnectDelay(Math.random, m.data.retry_after_ms ?? 0));
          });
          const apply = (m: { data: JobStatus }) =>
            updateCachedData((draft) => {
              if (isFinal(draft) || m.data.job_id !== jobId) return;
              draft.status = m.data.status;
              draft.progress = Math.max(draft.progress, m.data.progress);
              draft.message = m.data.message;
              draft.download_url = m.data.download_url;
            });
          socket.on('connect', () => {
            busyRetries = 0;
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
        clearTimeout(retry);
        socket?.close();
      },
    }),
  }),
});

export const {
  useEstimateQuery,
  useCreateJobMutation,
  useJobStatusQuery,
  useUploadInfoQuery,
  useActiveJobsQuery,
  useCancelJobMutation,
  useCorrectTempoMutation,
} = assemblyApi;

/** Uploads one file with progress (fetch has no upload progress, XHR has). */
export function uploadFile(
  file: File,
  token: string | null,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    signal?.addEventListener('abort', () => {
      xhr.abort();
      reject(new DOMException('Upload cancelled', 'AbortError'));
    });
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

/** An upload's probe, or null when the server no longer has it (expired unused, or not the caller's). */
export async function fetchUploadInfo(key: string, token: string): Promise<UploadInfo | null> {
  const r = await fetch(`/api/v1/uploads/info?key=${encodeURIComponent(key)}`, { headers: { authorization: `Bearer ${token}` } });
  return r.ok ? ((await r.json()) as UploadInfo) : null;
}
