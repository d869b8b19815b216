import { api } from '../../base/api';
import type { components } from '../../api/schema.gen';
import type { Catalogue, User } from '../../api/types';
import { formatMoney, formatPlural } from '../../base/format';

type Schemas = components['schemas'];
export type PaymentIntent = Schemas['PaymentIntent'];
export type PaymentRecord = Schemas['PaymentRecord'];
export type PaymentConfig = Schemas['PaymentConfig'];
export type CreateIntent = Schemas['CreateIntentRequestInput'];
export type ConfirmPayment = Schemas['ConfirmPaymentRequest'];
export type Plan = Catalogue['plans'][number];
export type Pack = Catalogue['packs'][number];

const paymentsApi = api.enhanceEndpoints({ addTagTypes: ['BillingHistory'] }).injectEndpoints({
  endpoints: (build) => ({
    catalogue: build.query<Catalogue, void>({ query: () => '/billing/catalogue' }),
    paymentConfig: build.query<PaymentConfig, void>({ query: () => '/payments/config' }),
    createIntent: build.mutation<PaymentIntent, CreateIntent>({
      query: (body) => ({ url: '/payments/create-intent', method: 'POST', body }),
    }),
    confirmPayment: build.mutation<{ payment: PaymentRecord; user: User }, ConfirmPayment>({
      query: (body) => ({ url: '/payments/confirm', method: 'POST', body }),
      // The user menu's credits and plan update at once, without a page reload.
      invalidatesTags: ['User', 'BillingHistory'],
    }),
    billingHistory: build.query<PaymentRecord[], void>({
      query: () => '/billing/history',
      transformResponse: (r: { payments: PaymentRecord[] }) => r.payments,
      providesTags: ['BillingHistory'],
    }),
    cancelSubscription: build.mutation<{ user: User }, void>({
      query: () => ({ url: '/billing/subscription/cancel', method: 'POST' }),
      invalidatesTags: ['User', 'BillingHistory'],
    }),
  }),
});

export const {
  useCatalogueQuery,
  usePaymentConfigQuery,
  useCreateIntentMutation,
  useConfirmPaymentMutation,
  useBillingHistoryQuery,
  useCancelSubscriptionMutation,
} = paymentsApi;

/** Starts fetching the price list (`useCatalogueQuery()`'s) before the page that shows it renders. */
/**
 * The catalogue as the cache holds it, without subscribing: for a part of a page whose page already
 * subscribes. A new subscriber re-asks for a query that failed, so a part shown only once the
 * catalogue has failed would ask again by mounting.
 */
export const useCatalogueState = () => paymentsApi.endpoints.catalogue.useQueryState(undefined);
export const prefetchCatalogue = () => paymentsApi.util.prefetch('catalogue', undefined, {});

/** What the payment dialog pays for (spec: Payment item). */
export type PaymentItem =
  | { kind: 'pack'; id: string; name: string; price: number; credits: number }
  | { kind: 'plan'; id: string; name: string; price: number; plan: string; billingCycle: 'monthly' | 'yearly'; credits: number };

export const packItem = (p: Pack): PaymentItem => ({
  kind: 'pack',
  id: p.id,
  name: formatPlural(p.credits, 'credit'),
  price: p.price,
  credits: p.credits,
});

export const planItem = (p: Plan, cycle: 'monthly' | 'yearly'): PaymentItem => ({
  kind: 'plan',
  id: p.id,
  name: `${p.name} plan (${cycle})`,
  price: cycle === 'yearly' ? p.yearly_price : p.monthly_price,
  plan: p.id,
  billingCycle: cycle,
  credits: cycle === 'yearly' ? p.yearly_credits : p.monthly_credits,
});

export const intentFor = (item: PaymentItem, method: 'card' | 'paypal'): CreateIntent =>
  item.kind === 'pack'
    ? { type: 'credits', item_id: item.id, amount: Math.round(item.price * 100), currency: 'usd', payment_method: method }
    : {
        type: 'subscription',
        item_id: item.id,
        amount: Math.round(item.price * 100),
        currency: 'usd',
        payment_method: method,
        billing_cycle: item.billingCycle,
      };

export const money = (dollars: number) => formatMoney(dollars, { whole: dollars % 1 === 0 });
