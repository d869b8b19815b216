import { api } from '../../base/api';
import type { PlanRequest, PlanResult } from '../../api/types';

const studioApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The edit plan and estimate for a request, or a plan with segments re-rolled; never reserves or charges. */
    plan: build.mutation<PlanResult, PlanRequest>({
      query: (body) => ({ url: '/jobs/plan', method: 'POST', body }),
    }),
  }),
});

export const { usePlanMutation } = studioApi;
