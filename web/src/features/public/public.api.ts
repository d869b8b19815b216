import { api } from '../../base/api';
import type { components } from '../../api/schema.gen';
import type { Pacing } from '../../api/types';

type Schemas = components['schemas'];
export type DemoVideo = Schemas['DemoVideo'];
export type DemoList = Schemas['DemoList'];
export type FeaturedList = Schemas['FeaturedList'];
export type ShowcaseStats = Schemas['ShowcaseStats'];
export type SharedReel = Schemas['SharedReel'];
export type ContactRequest = Schemas['ContactRequest'];
export type ContactMessage = Schemas['ContactMessage'];
export type ContactInbox = Schemas['ContactInbox'];
export type ShowcaseRating = Schemas['ShowcaseRating'];
export type ShowcaseCreator = Schemas['ShowcaseCreator'];

const publicApi = api.enhanceEndpoints({ addTagTypes: ['Showcase', 'Contact', 'Ratings'] }).injectEndpoints({
  endpoints: (build) => ({
    demos: build.query<DemoList, string>({
      query: (category) => ({ url: '/demos', params: category ? { category } : {} }),
      providesTags: ['Showcase'],
    }),
    featured: build.query<FeaturedList, number>({
      query: (limit) => ({ url: '/featured', params: { limit } }),
      providesTags: ['Showcase'],
    }),
    showcaseStats: build.query<ShowcaseStats, void>({ query: () => '/showcase/stats', providesTags: ['Showcase'] }),
    /** The Hall of Fame's creator cards: accounts behind featured reels that chose a public name. */
    showcaseCreators: build.query<{ creators: ShowcaseCreator[] }, void>({
      query: () => '/showcase/creators',
      providesTags: ['Showcase'],
    }),
    /** Star ratings of showcase reels (ids comma-separated), with the signed-in caller's own. */
    showcaseRatings: build.query<{ ratings: ShowcaseRating[] }, string>({
      query: (ids) => ({ url: '/showcase/ratings', params: { ids } }),
      providesTags: ['Ratings'],
    }),
    rateReel: build.mutation<ShowcaseRating, { id: string; stars: number }>({
      query: ({ id, stars }) => ({ url: `/showcase/${id}/rating`, method: 'PUT', body: { stars } }),
      invalidatesTags: ['Ratings'],
    }),
    countPlay: build.mutation<{ views: number }, string>({
      query: (id) => ({ url: `/showcase/${id}/play`, method: 'POST' }),
    }),
    costEstimate: build.query<{ credits: number }, { pacing_preset: Pacing; has_music: boolean; total_source_bytes: number }>({
      query: (body) => ({ url: '/billing/estimate', method: 'POST', body }),
    }),
    setSharing: build.mutation<{ shared: boolean; featured: boolean }, { id: string; shared: boolean }>({
      query: ({ id, shared }) => ({ url: `/library/${id}/showcase`, method: 'PUT', body: { shared } }),
      invalidatesTags: ['Showcase', 'Reel'],
    }),
    sharedReels: build.query<{ reels: SharedReel[]; total: number }, { limit: number; offset: number }>({
      query: (params) => ({ url: '/admin/showcase', params }),
      providesTags: ['Showcase'],
    }),
    featureReel: build.mutation<DemoVideo, { id: string; category: string }>({
      query: ({ id, category }) => ({ url: `/admin/showcase/${id}`, method: 'PUT', body: { category } }),
      invalidatesTags: ['Showcase'],
    }),
    unfeatureReel: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/admin/showcase/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Showcase'],
    }),
    sendContact: build.mutation<{ message: string }, ContactRequest>({
      query: (body) => ({ url: '/contact', method: 'POST', body }),
      invalidatesTags: ['Contact'],
    }),
    contactInbox: build.query<ContactInbox, { limit: number; offset: number }>({
      query: (params) => ({ url: '/admin/contact', params }),
      providesTags: ['Contact'],
    }),
  }),
});

export const {
  useDemosQuery,
  useFeaturedQuery,
  useShowcaseStatsQuery,
  useShowcaseCreatorsQuery,
  useShowcaseRatingsQuery,
  useRateReelMutation,
  useCountPlayMutation,
  useCostEstimateQuery,
  useSetSharingMutation,
  useSendContactMutation,
  useContactInboxQuery,
  useSharedReelsQuery,
  useFeatureReelMutation,
  useUnfeatureReelMutation,
} = publicApi;

/** Starts fetching a category's demos (`useDemosQuery(category)`'s) before the page that shows them renders. */
export const prefetchDemos = (category: string) => publicApi.util.prefetch('demos', category, {});
export { publicApi };
