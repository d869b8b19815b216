import { lazy, Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import './payments.css';
import { errorCode, errorDetail } from '../../base/api';
import { Modal } from '../../components/Modal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { cart } from './cart';
import { announcePayment } from './PaymentNotice';
import {
  intentFor,
  money,
  useConfirmPaymentMutation,
  useCreateIntentMutation,
  usePaymentConfigQuery,
  type ConfirmPayment,
  type PaymentIntent,
  type PaymentItem,
} from './payments.api';
import { formatPlural } from '../../base/format';

/** Spec timing: the wait before confirming, and before closing after success. */
export const CONFIRM_WAIT_MS = 2000;
export const CLOSE_DELAY_MS = 2000;
const TEST_MODE = 'Test mode: no real money moves';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Phase =
  | { kind: 'form' }
  | { kind: 'processing'; line: string }
  | { kind: 'paypal'; intents: PaymentIntent[] }
  | { kind: 'success'; line: string };

/** Stripe's card form and Stripe.js itself load only when the card provider is Stripe. */
const StripeCard = lazy(() => import('./StripeCard'));
const loadingCardForm = (
  <p className="notice">
    <span className="spinner" aria-hidden="true" /> Loading card form…
  </p>
);

/**
 * The payment dialog (spec: Payment modal): card or PayPal; form -> processing -> success, then it
 * closes after 2 seconds and calls onSuccess. Each item is its own payment; the server prices it
 * and grants its credits once. Items from the cart leave the cart as they are paid.
 */
export function PaymentDialog({
  items,
  fromCart = false,
  onClose,
  onSuccess,
}: {
  items: PaymentItem[];
  fromCart?: boolean;
  onClose: () => void;
  onSuccess?: () => void;
}) {
  const config = usePaymentConfigQuery();
  const [method, setMethod] = useState<'card' | 'paypal'>('card');
  const [phase, setPhase] = useState<Phase>({ kind: 'form' });
  const [error, setError] = useState('');
  const [createIntent] = useCreateIntentMutation();
  const [confirm] = useConfirmPaymentMutation();
  const total = items.reduce((n, i) => n + i.price, 0);
  const credits = items.reduce((n, i) => n + i.credits, 0);
  const closing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(closing.current), []);
  const busy = phase.kind === 'processing';
  const close = () => !busy && onClose();
  // The card number takes the focus when the card form first shows (not again after a method switch).
  const cardFocused = useRef(false);
  const takeFocus = () => {
    if (cardFocused.current) return false;
    cardFocused.current = true;
    return true;
  };

  const succeed = () => {
    const line = `Payment successful! ${formatPlural(credits, 'credit')} ${credits === 1 ? 'has' : 'have'} been added to your account.`;
    setPhase({ kind: 'success', line });
    closing.current = setTimeout(() => {
      // The confirmation stays in view on the page once the dialog has gone.
      announcePayment(line);
      onClose();
      onSuccess?.();
    }, CLOSE_DELAY_MS);
  };

  /** Creates one payment per item; a failure stops with the spec's message or the server's detail. */
  const createAll = async (m: 'card' | 'paypal'): Promise<PaymentIntent[] | null> => {
    const out: PaymentIntent[] = [];
    for (const item of items) {
      try {
        out.push(await createIntent(intentFor(item, m)).unwrap());
      } catch (e) {
        setError(errorDetail(e, 'Failed to create payment intent.'));
        setPhase({ kind: 'form' });
        return null;
      }
    }
    return out;
  };

  /** Confirms each payment in turn; paid items leave the cart even if a later one fails. */
  const confirmAll = async (intents: PaymentIntent[], extra: Omit<ConfirmPayment, 'payment_intent_id'>) => {
    for (const [i, intent] of intents.entries()) {
      setPhase({ kind: 'processing', line: items.length > 1 ? `Confirming payment ${i + 1} of ${items.length}…` : 'Confirming payment…' });
      try {
        await confirm({ payment_intent_id: intent.payment_intent_id, ...extra }).unwrap();
        if (fromCart) cart.paid(items[i]!.id);
      } catch (e) {
        const declined = (e as { status?: number }).status === 402 || errorCode(e) === 'payment_declined';
        setError(declined ? errorDetail(e, 'Payment confirmation failed') : errorDetail(e, 'Payment failed. Please try again.'));
        setPhase({ kind: 'form' });
        return false;
      }
    }
    return true;
  };

  const paySandboxCard = async (card: { number: string; expiry: string; cvc: string }) => {
    setError('');
    setPhase({ kind: 'processing', line: 'Creating payment…' });
    const intents = await createAll('card');
    if (!intents) return;
    setPhase({ kind: 'processing', line: 'Confirming payment…' });
    await sleep(CONFIRM_WAIT_MS);
    if (await confirmAll(intents, { test_card: card.number, test_expiry: card.expiry, test_cvc: card.cvc })) succeed();
  };

  const startPaypal = async () => {
    setError('');
    setPhase({ kind: 'processing', line: 'Opening PayPal…' });
    const intents = await createAll('paypal');
    if (intents) setPhase({ kind: 'paypal', intents });
  };

  const finishPaypal = async (intents: PaymentIntent[], action: 'approve' | 'cancel') => {
    setPhase({ kind: 'processing', line: action === 'approve' ? 'Capturing PayPal payment…' : 'Cancelling…' });
    if (await confirmAll(intents, { paypal_action: action })) succeed();
  };

  const summary = (
    <ul className="pay-items" aria-label="You pay for">
      {items.map((i, n) => (
        <li key={`${i.id}-${n}`}>
          <span>{i.name}</span>
          <span>
            {money(i.price)}
            {i.kind === 'plan' ? (i.billingCycle === 'yearly' ? '/year' : '/month') : ''}
          </span>
        </li>
      ))}
      <li className="pay-total">
        <span>Total</span>
        <span>{money(total)}</span>
      </li>
    </ul>
  );

  const sandbox = config.data && (method === 'card' ? config.data.card_provider === 'sandbox' : config.data.paypal_provider === 'sandbox');

  return (
    <Modal title={items.some((i) => i.kind === 'plan') ? 'Subscribe' : 'Buy credits'} onClose={close}>
      {config.isLoading && (
        <p className="notice">
          <span className="spinner" aria-hidden="true" /> Loading payment options…
        </p>
      )}
      {config.isError && (
        <div role="alert">
          <p className="error">Payment options could not be loaded. Please try again.</p>
          <button className="btn" onClick={() => void config.refetch()}>
            Retry
          </button>
        </div>
      )}
      {config.data && phase.kind === 'success' && (
        <p className="notice success" role="status">
          {phase.line}
        </p>
      )}
      {config.data && phase.kind !== 'success' && (
        <div className="pay">
          {summary}
          {sandbox && (
            <p className="test-mode" role="note">
              {TEST_MODE}
            </p>
          )}
          <div className="pay-methods" role="radiogroup" aria-label="Payment method">
            {(['card', 'paypal'] as const).map((m) => (
              <label key={m} className={method === m ? 'chosen' : undefined}>
                <input
                  type="radio"
                  name="method"
                  value={m}
                  checked={method === m}
                  disabled={busy || phase.kind === 'paypal'}
                  onChange={() => {
                    setMethod(m);
                    setError('');
                  }}
                />
                {m === 'card' ? 'Card' : 'PayPal'}
              </label>
            ))}
          </div>
          {error && <ErrorAlert>{error}</ErrorAlert>}
          {phase.kind === 'processing' && (
            <p className="notice" role="status">
              <span className="spinner" aria-hidden="true" /> {phase.line}
            </p>
          )}
          {/* Kept while the payment runs, so a declined card is tried again without typing it all again. */}
          {method === 'card' && config.data.card_provider === 'sandbox' && (phase.kind === 'form' || busy) && (
            <SandboxCardForm total={total} busy={busy} onAttempt={() => setError('')} onPay={paySandboxCard} takeFocus={takeFocus} />
          )}
          {method === 'card' && config.data.card_provider === 'stripe' && phase.kind !== 'paypal' && (
            <Suspense fallback={loadingCardForm}>
              <StripeCard
                publishableKey={config.data.stripe_publishable_key}
                total={total}
                busy={busy}
                onError={(m) => {
                  setError(m);
                  setPhase({ kind: 'form' });
                }}
                onStart={() => {
                  setError('');
                  setPhase({ kind: 'processing', line: 'Creating payment…' });
                }}
                createAll={() => createAll('card')}
                confirmAll={(intents) => confirmAll(intents, {})}
                onPaid={succeed}
              />
            </Suspense>
          )}
          {method === 'paypal' && phase.kind === 'form' && (
            <div className="form">
              <p className="muted">You approve the payment with PayPal{sandbox ? ' (a sandbox PayPal step)' : ''}.</p>
              <button className="btn primary wide" onClick={() => void startPaypal()}>
                Continue to PayPal
              </button>
            </div>
          )}
          {phase.kind === 'paypal' && (
            <div className="paypal-step" aria-label="PayPal">
              <p>
                <strong>PayPal{sandbox ? ' sandbox' : ''}</strong>: approve paying {money(total)} to Reelsmith?
              </p>
              {!sandbox && phase.intents[0]?.approval_url && (
                <p>
                  <a href={phase.intents[0].approval_url} target="_blank" rel="noreferrer">
                    Open PayPal to approve
                  </a>
                  , then come back and press Approve.
                </p>
              )}
              <div className="row">
                <button className="btn primary" onClick={() => void finishPaypal(phase.intents, 'approve')}>
                  Approve
                </button>
                <button className="btn" onClick={() => void finishPaypal(phase.intents, 'cancel')}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </div>
      )}
    </Modal>
  );
}

const digits = (s: string) => s.replace(/\D/g, '');
const groupCard = (s: string) =>
  digits(s)
    .slice(0, 19)
    .replace(/(.{4})/g, '$1 ')
    .trim();
const formatExpiry = (s: string) => {
  const d = digits(s).slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
};

/** The sandbox's card form: the published test cards, any future expiry and any CVC. */
function SandboxCardForm({
  total,
  busy,
  onAttempt,
  onPay,
  takeFocus,
}: {
  total: number;
  busy: boolean;
  /** A new attempt starts: the last attempt's message goes. */
  onAttempt: () => void;
  onPay: (c: { number: string; expiry: string; cvc: string }) => void;
  /** Whether the card number should take the focus now (the dialog's first card form). */
  takeFocus: () => boolean;
}) {
  const [number, setNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const [problem, setProblem] = useState('');
  const numberField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // Once, when the form first shows (it may show after the dialog opened, once the options load).
    if (takeFocus()) numberField.current?.focus();
  }, []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    onAttempt();
    if (digits(number).length < 12) return setProblem('Enter a card number.');
    if (!/^\d{2}\/\d{2}$/.test(expiry)) return setProblem('Enter the expiry as MM/YY.');
    if (!/^\d{3,4}$/.test(cvc)) return setProblem('Enter the 3 or 4 digit CVC.');
    setProblem('');
    onPay({ number: digits(number), expiry, cvc });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Test card">
      <label>
        Card number
        <input
          ref={numberField}
          data-autofocus
          inputMode="numeric"
          autoComplete="off"
          placeholder="16 digits"
          value={number}
          onChange={(e) => setNumber(groupCard(e.target.value))}
        />
      </label>
      <div className="row">
        {/* The card fields look alike by design: one labelled input each, with its own format and autofill. */}
        <label>
          Expiry (MM/YY)
          <input
            inputMode="numeric"
            autoComplete="off"
            placeholder="MM/YY"
            value={expiry}
            onChange={(e) => setExpiry(formatExpiry(e.target.value))}
          />
        </label>
        <label>
          CVC
          <input
            inputMode="numeric"
            autoComplete="off"
            placeholder="3 or 4 digits"
            value={cvc}
            onChange={(e) => setCvc(digits(e.target.value).slice(0, 4))}
          />
        </label>
      </div>
      <p className="muted small">
        Test cards: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined; 4000 0000 0000 9995 has insufficient funds. Any future
        date, any CVC.
      </p>
      {problem && <ErrorAlert>{problem}</ErrorAlert>}
      <button className="btn primary wide" type="submit" disabled={busy}>
        Pay {money(total)}
      </button>
    </form>
  );
}
