import { api } from '../../base/api';
import type { components } from '../../api/schema.gen';
import { formatMoney, formatPlural } from '../../base/format';

type Schemas = components['schemas'];
export type FootageClip = Schemas['FootageClip'];
export type Offer = Schemas['Offer'];
export type Payout = Schemas['Payout'];
export type OfferType = 'cash' | 'credits';

/** The spec's default offers. */
export const DEFAULT_CASH = 0.1;
export const DEFAULT_CREDITS = 50;

const marketplaceApi = api.enhanceEndpoints({ addTagTypes: ['FootageClip', 'Offer', 'Payout'] }).injectEndpoints({
  endpoints: (build) => ({
    footageClips: build.query<{ clips: FootageClip[]; total: number; pending: number }, void>({
      query: () => '/admin/footage-marketplace',
      providesTags: (r) => [
        { type: 'FootageClip', id: 'LIST' },
        ...(r?.clips ?? []).map((c) => ({ type: 'FootageClip' as const, id: c.id })),
      ],
    }),
    makeOffer: build.mutation<FootageClip, { id: string; type: OfferType; amount?: number }>({
      query: ({ id, ...body }) => ({ url: `/admin/footage-marketplace/${id}/offer`, method: 'POST', body }),
      invalidatesTags: (_r, _e, a) => [{ type: 'FootageClip', id: a.id }],
    }),
    deleteClip: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/admin/footage-marketplace/${id}`, method: 'DELETE' }),
      invalidatesTags: [{ type: 'FootageClip', id: 'LIST' }],
    }),
    payouts: build.query<{ payouts: Payout[] }, void>({
      query: () => '/admin/footage-marketplace/payouts',
      providesTags: [{ type: 'Payout', id: 'LIST' }],
    }),
    markPayoutPaid: build.mutation<Payout, string>({
      query: (id) => ({ url: `/admin/footage-marketplace/payouts/${id}/paid`, method: 'POST' }),
      invalidatesTags: [{ type: 'Payout', id: 'LIST' }],
    }),
    myOffers: build.query<{ offers: Offer[] }, void>({
      query: () => '/user/offers',
      providesTags: [{ type: 'Offer', id: 'LIST' }],
    }),
    acceptOffer: build.mutation<{ message: string }, { id: string; offer_type: OfferType }>({
      query: ({ id, offer_type }) => ({ url: `/user/offers/${id}/accept`, method: 'POST', body: { offer_type } }),
      // The balance changes with a credits offer: the user menu shows it.
      invalidatesTags: [{ type: 'Offer', id: 'LIST' }, 'User'],
    }),
    declineOffer: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/user/offers/${id}/decline`, method: 'POST' }),
      invalidatesTags: [{ type: 'Offer', id: 'LIST' }],
    }),
  }),
});

export const {
  useFootageClipsQuery,
  useMakeOfferMutation,
  useDeleteClipMutation,
  usePayoutsQuery,
  useMarkPayoutPaidMutation,
  useMyOffersQuery,
  useAcceptOfferMutation,
  useDeclineOfferMutation,
} = marketplaceApi;

export const money = (dollars: number) => formatMoney(dollars);
export const offerText = (o: { cash_offer: number | null; credits_offer: number | null }) =>
  o.cash_offer !== null ? `${money(o.cash_offer)} cash` : formatPlural(o.credits_offer ?? 0, 'credit');
