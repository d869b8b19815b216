import { Modal } from '../../components/Modal';
import { cart, cartTotal, type CartItem } from './cart';
import { money } from './payments.api';

/** The cart's dialog: items, per-item remove, total and Checkout. */
export function CartPanel({ items, onClose, onCheckout }: { items: CartItem[]; onClose: () => void; onCheckout: () => void }) {
  return (
    <Modal title="Cart" className="drawer" onClose={onClose}>
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
      <button className="btn primary wide" disabled={items.length === 0} onClick={onCheckout}>
        Checkout
      </button>
    </Modal>
  );
}
