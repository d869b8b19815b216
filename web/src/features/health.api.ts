import { api } from '../app/api';

export interface HealthReport {
  status: 'healthy' | 'unhealthy';
  services: Record<string, string>;
  unavailable?: string[];
}

const healthApi = api.injectEndpoints({
  endpoints: (build) => ({
    getHealth: build.query<HealthReport, void>({
      query: () => '/health',
      // A 503 still carries the per-service report.
      transformErrorResponse: (e) => e,
      providesTags: ['Health'],
    }),
  }),
});

export const { useGetHealthQuery } = healthApi;
