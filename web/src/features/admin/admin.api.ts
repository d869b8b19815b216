import { api } from '../../base/api';
import type { GuestPass } from '../../api/types';
import type { components } from '../../api/schema.gen.js';

export type DetailedHealth = components['schemas']['DetailedHealth'];
export type Metrics = components['schemas']['Metrics'];
export type ActivityEvent = components['schemas']['ActivityEvent'];

const adminApi = api.injectEndpoints({
  endpoints: (build) => ({
    detailedHealth: build.query<DetailedHealth, void>({ query: () => '/health/detailed', keepUnusedDataFor: 0 }),
    dashboardMetrics: build.query<Metrics, void>({ query: () => '/metrics', keepUnusedDataFor: 0 }),
    activityFeed: build.query<ActivityEvent[], { limit: number }>({
      query: ({ limit }) => ({ url: '/admin/activity-feed', params: { limit } }),
      keepUnusedDataFor: 0,
    }),
    guestPass: build.query<GuestPass, void>({ query: () => '/admin/guest-pass', providesTags: ['GuestPass'] }),
    setGuestPass: build.mutation<GuestPass, { enabled: boolean }>({
      query: (body) => ({ url: '/admin/guest-pass', method: 'POST', body }),
      invalidatesTags: ['GuestPass'],
    }),
  }),
});

export const {
  useLazyDetailedHealthQuery,
  useLazyDashboardMetricsQuery,
  useLazyActivityFeedQuery,
  useGuestPassQuery,
  useSetGuestPassMutation,
} = adminApi;
