// The catalogue's plans and credit packs as cards: on the pricing page and in Home's pay gate.
import { useState } from 'react';
import type { User } from '../../api/types';
import { formatPlural } from '../../base/format';
import { ErrorAlert } from '../../components/ErrorAlert';
import { cart } from './cart';
import { perCreditLine } from './credit-price';
import { isCurrentPlan } from './current';
import { money, packItem, planItem, useCatalogueQuery, useCatalogueState, type PaymentItem } from './payments.api';

export type Cycle = 'monthly' | 'yearly';

/** The Monthly / Yearly switch above the plan cards (name: the radio group's, unique per page). */
export function CycleToggle({ name, cycle, onChange }: { name: string; cycle: Cycle; onChange: (c: Cycle) => void }) {
  return (
    <div className="cycle-toggle" role="radiogroup" aria-label="Billing cycle">
      {(['monthly', 'yearly'] as const).map((c) => (
        <label key={c} className={cycle === c ? 'chosen' : undefined}>
          <input type="radio" name={name} value={c} checked={cycle === c} onChange={() => onChange(c)} />
          {c === 'monthly' ? 'Monthly' : 'Yearly'}
          {c === 'yearly' && <span className="badge">Save 20%</span>}
        </label>
      ))}
    </div>
  );
}

const yearlySaving = (monthly: number) => monthly * 12 * 0.2;

/** Plan cards; the button opens the payment dialog (or sign-in when signed out). */
export function PlanCards({ cycle, user, onChoose }: { cycle: Cycle; user: User | null; onChoose: (item: PaymentItem) => void }) {
  const catalogue = useCatalogueQuery();
  if (catalogue.isLoading) return <p className="notice">Loading plans…</p>;
  if (catalogue.isError || !catalogue.data)
    return (
      <ErrorAlert>
        Plans could not be loaded.{' '}
        <button className="link" onClick={() => void catalogue.refetch()}>
          Try again
        </button>
      </ErrorAlert>
    );
  return (
    <div className="plan-grid">
      {catalogue.data.plans.map((p) => {
        const current = isCurrentPlan(user?.subscription, p.id, cycle);
        const price = cycle === 'yearly' ? p.yearly_price : p.monthly_price;
        return (
          <article key={p.id} className={`card plan${p.most_popular ? ' popular' : ''}`} aria-label={`${p.name} plan`}>
            {p.most_popular && <span className="badge">Most Popular</span>}
            <h3>{p.name}</h3>
            <p className="price">
              {money(price)}
              <span className="muted">/{cycle === 'yearly' ? 'year' : 'month'}</span>
            </p>
            {cycle === 'yearly' && <p className="saving">Save {money(yearlySaving(p.monthly_price))} a year</p>}
            <ul>
              <li>
                {formatPlural(cycle === 'yearly' ? p.yearly_credits : p.monthly_credits, 'credit')}/{cycle === 'yearly' ? 'year' : 'month'}
              </li>
              <li data-testid="credit-price">{perCreditLine(price, cycle === 'yearly' ? p.yearly_credits : p.monthly_credits)}</li>
              <li>Storage: {cycle === 'yearly' ? p.storage.yearly : p.storage.monthly}</li>
              <li>Export: {p.export_quality}</li>
              <li>Video: {cycle === 'yearly' ? p.approx_video.yearly : p.approx_video.monthly}</li>
              {p.features.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
            <button className="btn primary wide" disabled={current} onClick={() => onChoose(planItem(p, cycle))}>
              {current ? 'Current Plan' : 'Subscribe Now'}
            </button>
          </article>
        );
      })}
    </div>
  );
}

/** Pack cards, under a page that subscribes to the catalogue (they read it, never ask for it). */
export function PackCards({ onChoose, withCart = true }: { onChoose: (item: PaymentItem) => void; withCart?: boolean }) {
  const catalogue = useCatalogueState();
  const [added, setAdded] = useState('');
  if (catalogue.isLoading) return <p className="notice">Loading credit packs…</p>;
  if (catalogue.isError || !catalogue.data) return <ErrorAlert>Credit packs could not be loaded.</ErrorAlert>;
  return (
    <div className="pack-grid">
      {catalogue.data.packs.map((p) => (
        <article key={p.id} className={`card pack${p.best_value ? ' popular' : ''}`} aria-label={`${p.credits} credits pack`}>
          {p.best_value && <span className="badge">Best Value</span>}
          <h3>{formatPlural(p.credits, 'credit')}</h3>
          <p className="price">{money(p.price)}</p>
          <p className="small" data-testid="credit-price">
            {perCreditLine(p.price, p.credits)}
          </p>
          <p className="muted small">Never expire</p>
          <button className="btn primary wide" onClick={() => onChoose(packItem(p))}>
            Buy Now
          </button>
          {withCart && (
            <button
              className="btn wide"
              onClick={() => {
                const item = packItem(p);
                cart.add({ id: item.id, name: item.name, price: item.price, credits: item.credits });
                setAdded(p.id);
              }}
            >
              {added === p.id ? 'Added to cart ✓' : 'Add to Cart'}
            </button>
          )}
        </article>
      ))}
    </div>
  );
}
