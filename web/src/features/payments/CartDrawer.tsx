import { lazy, Suspense, useState } from 'react';
import { authOpened } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import { useCurrentUser } from '../auth';
import { useCart } from './cart';
import { LazyPaymentDialog } from './LazyPaymentDialog';
import type { PaymentItem } from './payments.api';
import './payments.css';

/** The open cart's dialog loads the first time it is opened. */
const CartPanel = lazy(() => import('./CartPanel').then((m) => ({ default: m.CartPanel })));

/** The top bar's cart: items, per-item remove, total, and Checkout (the payment dialog for the cart). */
export function CartDrawer() {
  const items = useCart();
  const { user } = useCurrentUser();
  const dispatch = useAppDispatch();
  const [open, setOpen] = useState(false);
  const [paying, setPaying] = useState<PaymentItem[] | null>(null);
  const count = items.reduce((n, i) => n + i.quantity, 0);

  const checkout = () => {
    if (!user) return dispatch(authOpened({ mode: 'signin' }));
    setOpen(false);
    setPaying(
      items.flatMap((i) =>
        Array.from({ length: i.quantity }, () => ({ kind: 'pack' as const, id: i.id, name: i.name, price: i.price, credits: i.credits })),
      ),
    );
  };

  return (
    <div className="cart">
      {/* The accessible name is the words shown ("Cart 2 items"), so speech input matches the screen. */}
      <button className="btn cart-button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <svg className="cart-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            d="M3 4h2l2.4 10.2a1 1 0 0 0 1 .8h8.9a1 1 0 0 0 1-.8L20 7H6.2M9 19.5a1 1 0 1 0 0 .01M17 19.5a1 1 0 1 0 0 .01"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
        <span className="cart-label">Cart</span> <span className="cart-count">{count}</span>
        <span className="sr-only"> item{count === 1 ? '' : 's'}</span>
      </button>
      {open && (
        <Suspense fallback={null}>
          <CartPanel items={items} onClose={() => setOpen(false)} onCheckout={checkout} />
        </Suspense>
      )}
      {paying && <LazyPaymentDialog items={paying} fromCart onClose={() => setPaying(null)} />}
    </div>
  );
}
