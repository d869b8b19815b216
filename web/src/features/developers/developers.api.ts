import { api } from '../../base/api';
import type { components } from '../../api/schema.gen.js';

type Schemas = components['schemas'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type ApiKeyScope = Schemas['ApiKeyScope'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointCreated = Schemas['WebhookEndpointCreated'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** API keys and webhooks (Settings): lists provide their LIST tag, creating and deleting invalidate it. */
const developersApi = api.enhanceEndpoints({ addTagTypes: ['ApiKey', 'WebhookEndpoint', 'WebhookDelivery'] }).injectEndpoints({
  endpoints: (build) => ({
    apiKeys: build.query<ApiKey[], void>({
      query: () => '/api-keys',
      transformResponse: (r: { keys: ApiKey[] }) => r.keys,
      providesTags: (keys = []) => [{ type: 'ApiKey', id: 'LIST' }, ...keys.map((k) => ({ type: 'ApiKey' as const, id: k.id }))],
    }),
    createApiKey: build.mutation<ApiKeyCreated, { name: string; scopes: ApiKeyScope[] }>({
      query: (body) => ({ url: '/api-keys', method: 'POST', body }),
      invalidatesTags: [{ type: 'ApiKey', id: 'LIST' }],
    }),
    revokeApiKey: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/api-keys/${id}`, method: 'DELETE' }),
      invalidatesTags: (_r, _e, id) => [
        { type: 'ApiKey', id: 'LIST' },
        { type: 'ApiKey', id },
      ],
    }),
    webhookEndpoints: build.query<{ endpoints: WebhookEndpoint[]; callback_secret: string }, void>({
      query: () => '/webhook-endpoints',
      providesTags: [{ type: 'WebhookEndpoint', id: 'LIST' }],
    }),
    createWebhookEndpoint: build.mutation<WebhookEndpointCreated, { url: string; events: WebhookEvent[] }>({
      query: (body) => ({ url: '/webhook-endpoints', method: 'POST', body }),
      invalidatesTags: [{ type: 'WebhookEndpoint', id: 'LIST' }],
    }),
    deleteWebhookEndpoint: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/webhook-endpoints/${id}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'WebhookEndpoint', id: 'LIST' }],
    }),
    testWebhookEndpoint: build.mutation<WebhookDelivery, string>({
      query: (id) => ({ url: `/webhook-endpoints/${id}/test`, method: 'POST' }),
      invalidatesTags: [{ type: 'WebhookDelivery', id: 'LIST' }],
    }),
    webhookDeliveries: build.query<WebhookDelivery[], void>({
      query: () => '/webhook-deliveries?limit=20',
      transformResponse: (r: { deliveries: WebhookDelivery[] }) => r.deliveries,
      providesTags: [{ type: 'WebhookDelivery', id: 'LIST' }],
    }),
    resendWebhookDelivery: build.mutation<WebhookDelivery, string>({
      query: (id) => ({ url: `/webhook-deliveries/${id}/resend`, method: 'POST' }),
      invalidatesTags: [{ type: 'WebhookDelivery', id: 'LIST' }],
    }),
  }),
});

export const {
  useApiKeysQuery,
  useCreateApiKeyMutation,
  useRevokeApiKeyMutation,
  useWebhookEndpointsQuery,
  useCreateWebhookEndpointMutation,
  useDeleteWebhookEndpointMutation,
  useTestWebhookEndpointMutation,
  useWebhookDeliveriesQuery,
  useResendWebhookDeliveryMutation,
} = developersApi;
