import { useEffect, useRef, useState } from 'react';
import { authOpened } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { useCurrentUser } from '../auth';
import { cart, cartTotal, useCart } from './cart';
import { LazyPaymentDialog } from './LazyPaymentDialog';
import { money, type PaymentItem } from './payments.api';
import './payments.css';

/** The top bar's cart: items, per-item remove, total, and Checkout (the payment dialog for the cart). */
export function CartDrawer() {
  const items = useCart();
  const { user } = useCurrentUser();
  const dispatch = useAppDispatch();
  const [open, setOpen] = useState(false);
  const [paying, setPaying] = useState<PaymentItem[] | null>(null);
  const count = items.reduce((n, i) => n + i.quantity, 0);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', onKey);
    ref.current?.querySelector<HTMLElement>('button')?.focus();
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

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
        <div className="drawer" role="dialog" aria-label="Cart" ref={ref}>
          <header>
            <h2>Cart</h2>
            <button className="icon" aria-label="Close cart" onClick={() => setOpen(false)}>
              ✕
            </button>
          </header>
          {items.length === 0 ? (
            <p className="muted">Your cart is empty. Add credit packs from the Pricing page.</p>
          ) : (
            <ul>
              {items.map((i) => (
                <li key={i.id}>
                  <span>
                    {i.name}
                    {i.quantity > 1 ? ` × ${i.quantity}` : ''}
                  </span>
                  <span>{money(i.price * i.quantity)}</span>
                  <button className="btn" aria-label={`Remove ${i.name}`} onClick={() => cart.remove(i.id)}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <p className="pay-total">
            Total: <strong>{money(cartTotal(items))}</strong>
          </p>
          <button className="btn primary wide" disabled={items.length === 0} onClick={checkout}>
            Checkout
          </button>
        </div>
      )}
      {paying && <LazyPaymentDialog items={paying} fromCart onClose={() => setPaying(null)} />}
    </div>
  );
}
