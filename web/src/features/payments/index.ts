/** What the rest of the app uses of payments (PayToContinue is loaded lazily by its own path). */
export { CartDrawer } from './CartDrawer';
export { cart } from './cart';
export { CycleToggle, PackCards, PlanCards, type Cycle } from './CatalogueCards';
export { LazyPaymentDialog } from './LazyPaymentDialog';
export { PaymentNotice, announcePayment } from './PaymentNotice';
export { creditPriceRange, estimateInMoney, perCreditLine } from './credit-price';
export {
  money,
  packItem,
  planItem,
  prefetchCatalogue,
  useBillingHistoryQuery,
  useCancelSubscriptionMutation,
  useCatalogueQuery,
  type PaymentItem,
} from './payments.api';
