import { useState } from 'react';
import { errorDetail } from '../../base/api';
import { authOpened } from '../../base/session';
import { useAppDispatch, type AppDispatch } from '../../base/store';
import type { User } from '../../api/types';
import { useCurrentUser } from '../auth';
import {
  CycleToggle,
  creditPriceRange,
  LazyPaymentDialog,
  money,
  PackCards,
  PlanCards,
  useBillingHistoryQuery,
  useCancelSubscriptionMutation,
  prefetchCatalogue,
  useCatalogueQuery,
  type Cycle,
  type PaymentItem,
} from '../payments';
import '../payments/payments.css';
import { usePageMeta } from '../public';
import { formatCount, formatDate, formatPlural } from '../../base/format';
import { ErrorAlert } from '../../components/ErrorAlert';

/** Every answer is true of the product as built (issue 14). */
export const FAQ = [
  {
    q: 'Can I try Reelsmith before paying?',
    a: 'Yes. Every account gets one free video a day (up to 3 minutes), with no card needed. Credit packs and plans are for making more.',
  },
  {
    q: 'Can I cancel my subscription?',
    a: 'Yes, at any time from Billing and Plans on this page. Your plan stays active until the end of the period you paid for and is not renewed.',
  },
  {
    q: 'What happens when I change plans?',
    a: 'The change takes effect immediately: a new billing period starts that day at the new plan’s price, with its credits added. Credits you already have stay yours.',
  },
  {
    q: 'Which payment methods do you accept?',
    a: 'Cards and PayPal. Credit packs never expire.',
  },
];

const PLAN_NAMES: Record<string, string> = { free: 'Free', standard: 'Standard', 'mid-tier': 'Mid-Tier', corporate: 'Corporate' };

// Its history table is written out like the admin's and the marketplace's tables on purpose: each has its own columns.
/** The subscription, Cancel, and the payment history ('Billing and Plans'). */
function BillingSection({ user }: { user: User }) {
  const history = useBillingHistoryQuery();
  const [cancel, cancelState] = useCancelSubscriptionMutation();
  const [error, setError] = useState('');
  const s = user.subscription;
  const paid = s.plan !== 'free' && (s.status === 'active' || s.status === 'past_due');
  const date = formatDate;
  const doCancel = async () => {
    if (!window.confirm('Cancel your subscription? Your plan stays active until the end of the current period.')) return;
    setError('');
    await cancel()
      .unwrap()
      .catch((e: unknown) => setError(errorDetail(e, 'Subscription cancellation failed')));
  };
  return (
    <section className="billing" id="billing" aria-labelledby="billing-h">
      <h2 id="billing-h">Billing and Plans</h2>
      <p data-testid="billing-plan">
        Plan: <strong>{PLAN_NAMES[s.plan] ?? s.plan}</strong>
        {s.plan !== 'free' && ` (${s.billing_cycle ?? ''}, ${s.status.replace('_', ' ')})`} · {formatPlural(user.credits, 'credit')}
      </p>
      {paid && s.next_billing && (
        <p className="muted">
          {s.cancel_at_period_end ? `Ends on ${date(s.next_billing)}; it will not renew.` : `Renews on ${date(s.next_billing)}.`}
        </p>
      )}
      {s.status === 'past_due' && <ErrorAlert>Your last renewal payment failed. Subscribe again to restore your plan.</ErrorAlert>}
      {paid && !s.cancel_at_period_end && (
        <button className="btn" onClick={() => void doCancel()} disabled={cancelState.isLoading}>
          {cancelState.isLoading ? 'Cancelling…' : 'Cancel subscription'}
        </button>
      )}
      {error && <ErrorAlert>{error}</ErrorAlert>}
      <h3>Payment history</h3>
      {history.isLoading && <p className="notice">Loading payments…</p>}
      {history.isError && <ErrorAlert error={history.error} fallback="Payment history could not be loaded." />}
      {history.data && history.data.length === 0 && <p className="muted">No payments yet.</p>}
      {history.data && history.data.length > 0 && (
        <div className="table-scroll">
          <table className="history">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Item</th>
                <th scope="col">Amount</th>
                <th scope="col">Credits</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {history.data.map((p) => (
                <tr key={p.id}>
                  <td data-label="Date">{formatDate(p.date)}</td>
                  <td data-label="Item">
                    {p.item}
                    {p.type === 'renewal' ? ' (renewal)' : ''}
                  </td>
                  <td data-label="Amount">{money(p.amount)}</td>
                  <td data-label="Credits">{formatCount(p.credits)}</td>
                  <td data-label="Provider">{p.provider === 'sandbox' ? 'Test mode' : p.provider === 'stripe' ? 'Card' : 'PayPal'}</td>
                  <td data-label="Status" title={p.failure_message || undefined}>
                    {p.status}
                    {p.failure_message ? `: ${p.failure_message}` : ''}
                    {p.refunded_credits > 0 ? ` (${p.refunded_credits} credits taken back)` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Starts the page's first request (the price list) before it renders (the router calls it when the page opens the app). */
export function prefetchPricingPage(dispatch: AppDispatch) {
  dispatch(prefetchCatalogue());
}

/** /pricing: monthly/yearly toggle, three plans, four packs, FAQ, and the user's billing. */
export function PricingPage() {
  usePageMeta(
    'Pricing',
    'Reelsmith plans and credit packs: monthly or yearly subscriptions, packs that never expire, and one free video every day.',
  );
  const { user } = useCurrentUser();
  const dispatch = useAppDispatch();
  const [cycle, setCycle] = useState<Cycle>('monthly');
  const [paying, setPaying] = useState<PaymentItem | null>(null);
  const choose = (item: PaymentItem) => (user ? setPaying(item) : dispatch(authOpened({ mode: 'signin' })));
  // What follows the plans shows with them: it would be pushed down the screen when they arrive.
  // Once the catalogue has answered (or failed) it stays shown: a retry after a failure is
  // 'loading' again, and unmounting the packs on it would start the next retry (a request loop).
  const catalogue = useCatalogueQuery();
  const [settled, setSettled] = useState(false);
  if (!settled && (catalogue.isSuccess || catalogue.isError)) setSettled(true);
  const loading = !settled;
  const range = catalogue.data ? creditPriceRange(catalogue.data.packs, catalogue.data.plans) : '';
  return (
    <div className="pricing">
      <h1>Pricing</h1>
      <p className="lead" data-testid="pricing-lead">
        Pay per video with credits, or subscribe for a monthly or yearly allowance.
        {range && ` A credit costs ${range}, depending on the pack or plan: each card shows its price per credit.`} Home shows what the reel
        you are making costs, in credits and in money.
      </p>
      <CycleToggle name="cycle" cycle={cycle} onChange={setCycle} />
      <h2>Plans</h2>
      <PlanCards cycle={cycle} user={user} onChoose={choose} />
      {!loading && (
        <>
          <h2>Credit packs</h2>
          <PackCards onChoose={choose} />
          {user && <BillingSection user={user} />}
          <section className="faq" aria-labelledby="faq-h">
            <h2 id="faq-h">Frequently asked questions</h2>
            {FAQ.map((f) => (
              <details key={f.q}>
                <summary>{f.q}</summary>
                <p>{f.a}</p>
              </details>
            ))}
          </section>
        </>
      )}
      {paying && <LazyPaymentDialog items={[paying]} onClose={() => setPaying(null)} />}
    </div>
  );
}
