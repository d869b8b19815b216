import { useEffect, useSyncExternalStore } from 'react';

/**
 * The confirmation of a successful payment, in view after the payment dialog has closed: a status
 * line fixed at the bottom of the screen on whatever page the payment was made, until it is
 * dismissed or a while has passed. The dialog announces it (`announcePayment`); the layout shows it.
 */
let line = '';
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function announcePayment(text: string): void {
  line = text;
  emit();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** How long the confirmation stays without being dismissed. */
export const NOTICE_MS = 12_000;

export function PaymentNotice() {
  const text = useSyncExternalStore(
    subscribe,
    () => line,
    () => '',
  );
  useEffect(() => {
    if (!text) return;
    const t = setTimeout(() => announcePayment(''), NOTICE_MS);
    return () => clearTimeout(t);
  }, [text]);
  return (
    <div className="payment-notice-region" role="status" aria-live="polite">
      {text && (
        <p className="payment-notice" data-testid="payment-notice">
          <span>{text}</span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => announcePayment('')}>
            ✕
          </button>
        </p>
      )}
    </div>
  );
}
