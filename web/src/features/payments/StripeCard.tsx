import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Stripe, StripeCardElement } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { CardElement, Elements, useElements, useStripe } from '@stripe/react-stripe-js';
import { CONFIRM_WAIT_MS, sleep } from './PaymentDialog';
import { money, type PaymentIntent } from './payments.api';
import { ErrorAlert } from '../../components/ErrorAlert';

// Stripe.js is fetched from Stripe by loadStripe (the pure entry adds no script on import), once.
let stripePromise: Promise<Stripe | null> | undefined;
const stripeFor = (key: string) => (stripePromise ??= loadStripe(key).catch(() => null));

export interface StripeCardProps {
  publishableKey: string;
  total: number;
  busy: boolean;
  onStart: () => void;
  onError: (m: string) => void;
  createAll: () => Promise<PaymentIntent[] | null>;
  confirmAll: (intents: PaymentIntent[]) => Promise<boolean>;
  onPaid: () => void;
}

/** Card by Stripe Elements: Stripe confirms the card in the browser, then the server checks it with Stripe. */
export default function StripeCard(props: StripeCardProps) {
  const promise = useMemo(() => stripeFor(props.publishableKey), [props.publishableKey]);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let live = true;
    void promise.then((s) => live && setState(s ? 'ready' : 'failed'));
    return () => {
      live = false;
    };
  }, [promise]);
  if (state === 'failed') return <ErrorAlert>Stripe failed to load</ErrorAlert>;
  if (state === 'loading')
    return (
      <p className="notice">
        <span className="spinner" aria-hidden="true" /> Loading card form…
      </p>
    );
  return (
    <Elements stripe={promise}>
      <StripeCardForm {...props} />
    </Elements>
  );
}

function StripeCardForm({ total, busy, onStart, onError, createAll, confirmAll, onPaid }: StripeCardProps) {
  const stripe = useStripe();
  const elements = useElements();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const card = elements?.getElement(CardElement) as StripeCardElement | null;
    if (!stripe || !card) return onError('Stripe failed to load');
    onStart();
    const intents = await createAll();
    if (!intents) return;
    await sleep(CONFIRM_WAIT_MS);
    for (const intent of intents) {
      const r = await stripe.confirmCardPayment(intent.client_secret, { payment_method: { card } });
      if (r.error) return onError(r.error.message ?? 'Payment confirmation failed');
    }
    if (await confirmAll(intents)) onPaid();
  };
  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-label="Card">
      <div className="stripe-card">
        <CardElement options={{ hidePostalCode: true }} />
      </div>
      <button className="btn primary wide" type="submit" disabled={busy || !stripe}>
        Pay {money(total)}
      </button>
    </form>
  );
}
