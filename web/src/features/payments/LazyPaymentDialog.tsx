import { lazy, Suspense, type ComponentProps } from 'react';
import type { PaymentDialog } from './PaymentDialog';

const Dialog = lazy(() => import('./PaymentDialog').then((m) => ({ default: m.PaymentDialog })));

/** The payment dialog, whose code (and any provider's script) loads only when a payment starts. */
export function LazyPaymentDialog(props: ComponentProps<typeof PaymentDialog>) {
  return (
    <Suspense fallback={null}>
      <Dialog {...props} />
    </Suspense>
  );
}
