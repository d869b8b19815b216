import { useSyncExternalStore } from 'react';

/** Spec: Cart item (client only), kept in browser storage. */
export interface CartItem {
  id: string;
  name: string;
  price: number;
  quantity: number;
  credits: number;
}

const KEY = 'reelsmith.cart';
const listeners = new Set<() => void>();

function read(): CartItem[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? (v as CartItem[]).filter((i) => typeof i?.id === 'string' && i.quantity > 0) : [];
  } catch {
    return [];
  }
}

let items = read();

function write(next: CartItem[]) {
  items = next;
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // storage full or disabled: the cart lives for this page only
  }
  listeners.forEach((l) => l());
}

if (typeof window !== 'undefined')
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) {
      items = read();
      listeners.forEach((l) => l());
    }
  });

export const cart = {
  add(item: Omit<CartItem, 'quantity'>) {
    const found = items.find((i) => i.id === item.id);
    write(found ? items.map((i) => (i.id === item.id ? { ...i, quantity: i.quantity + 1 } : i)) : [...items, { ...item, quantity: 1 }]);
  },
  remove(id: string) {
    write(items.filter((i) => i.id !== id));
  },
  /** One unit of an item is paid: it leaves the cart. */
  paid(id: string) {
    write(items.flatMap((i) => (i.id !== id ? [i] : i.quantity > 1 ? [{ ...i, quantity: i.quantity - 1 }] : [])));
  },
  clear() {
    write([]);
  },
};

export const cartTotal = (list: CartItem[]) => list.reduce((n, i) => n + i.price * i.quantity, 0);

export function useCart(): CartItem[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => items,
  );
}
