import { api } from '../../base/api';
import type { components } from '../../api/schema.gen.js';

type Schemas = components['schemas'];
export type VideoLibraryFile = Schemas['VideoLibraryFile'];
export type VideoLibraryList = Schemas['VideoLibraryList'];
export type MusicLibraryFile = Schemas['MusicLibraryFile'];
export type MusicLibraryList = Schemas['MusicLibraryList'];
export type MusicAnalysis = Schemas['MusicAnalysis'];
export type SelectedVideo = Schemas['SelectedVideos']['selected_videos'][number];

export interface LibraryQuery {
  q?: string;
  category?: string;
  limit?: number;
  offset?: number;
}

/** The page size of the server, and the most the library page grows to (spec section 9). */
export const LIBRARY_PAGE = 50;
export const LIBRARY_MAX = 1000;

const params = (q: LibraryQuery) => {
  const p: Record<string, string> = {};
  if (q.q?.trim()) p.q = q.q.trim();
  if (q.category) p.category = q.category;
  if (q.limit) p.limit = String(q.limit);
  if (q.offset) p.offset = String(q.offset);
  return p;
};

const libraryApi = api.injectEndpoints({
  endpoints: (build) => ({
    videoLibrary: build.query<VideoLibraryList, LibraryQuery>({
      query: (q) => ({ url: '/video-library-detailed', params: params(q) }),
    }),
    /** A signed-in user's list shows their tempo corrections: it follows a correction and a sign-in. */
    musicLibrary: build.query<MusicLibraryList, LibraryQuery>({
      query: (q) => ({ url: '/music-library-detailed', params: params(q) }),
      providesTags: ['MusicLibrary', 'User'],
    }),
    musicAnalysis: build.query<MusicAnalysis, string>({
      query: (key) => `/music-library/analysis/${key}`,
    }),
    selectVideos: build.mutation<{ selected_videos: SelectedVideo[] }, string[]>({
      query: (video_keys) => ({ url: '/video-library/select', method: 'POST', body: { video_keys } }),
    }),
    selectMusic: build.mutation<{ object_key: string; key: string }, string>({
      query: (filename) => ({ url: '/music-library/select', method: 'POST', body: { filename } }),
    }),
    addToLibrary: build.mutation<{ outcome: string; key: string; kind: string; category: string }, { file: File; category: string }>({
      query: ({ file, category }) => {
        const body = new FormData();
        body.append('category', category);
        body.append('file', file, file.name);
        return { url: '/admin/library', method: 'POST', body };
      },
    }),
    removeFromLibrary: build.mutation<{ message: string }, string>({
      query: (key) => ({ url: `/admin/library/${key}`, method: 'DELETE' }),
    }),
    cacheMusic: build.mutation<{ preview_url: string }, string>({
      query: (key) => ({ url: `/music-library/cache/${key}`, method: 'POST' }),
    }),
  }),
});

export const {
  useVideoLibraryQuery,
  useMusicLibraryQuery,
  useMusicAnalysisQuery,
  useSelectVideosMutation,
  useSelectMusicMutation,
  useCacheMusicMutation,
  useAddToLibraryMutation,
  useRemoveFromLibraryMutation,
} = libraryApi;

/** Starts fetching a page of clips (`useVideoLibraryQuery(query)`'s) before the page that shows it renders. */
export const prefetchVideoLibrary = (query: LibraryQuery) => libraryApi.util.prefetch('videoLibrary', query, {});

/** 'nature clips' -> 'Nature clips' (the category dropdown shows them capitalised). */
export const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Bytes as people read them: 980 KB, 12.4 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** 75.4 -> '1:15'. */
export function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
