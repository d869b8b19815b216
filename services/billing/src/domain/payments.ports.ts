// What payments are made of and the ports they go through (repository, providers, receipts);
// the use cases are in payments.service.ts.
import type { BillingCycle, PlanId } from './catalogue.js';
import type { BillingTx } from './billing.service.js';
import type { PaymentMethod, PaymentStatus, PaymentType, PricedItem, ProviderName, SubscriptionState } from './payments.js';

export interface PaymentRecord {
  id: string;
  userId: string;
  email: string;
  provider: ProviderName;
  type: PaymentType;
  itemId: string;
  itemName: string;
  plan: PlanId | null;
  billingCycle: BillingCycle | null;
  amountCents: number;
  currency: string;
  credits: number;
  method: PaymentMethod;
  status: PaymentStatus;
  failureMessage: string;
  refundedCents: number;
  refundedCredits: number;
  /** The provider's reference to reuse for renewals or refunds (a saved card, a subscription). */
  providerRef: string;
  createdAt: Date;
}

/** The subscription side of an account, as payments see it. */
export interface SubscriptionRecord extends SubscriptionState {
  userId: string;
  /** Who renews it: the sandbox scheduler, or the provider (stripe invoices). */
  provider: ProviderName | null;
  /** The provider's subscription id (stripe), or the saved sandbox card for renewals. */
  providerRef: string;
  /** The user's customer at the provider (a Stripe Customer), reused for later subscriptions. */
  customerRef: string;
  email: string;
}

export interface PaymentsTx extends BillingTx {
  lockPayment(id: string): Promise<PaymentRecord | null>;
  /** False when a payment with this id exists already. */
  insertPayment(p: PaymentRecord): Promise<boolean>;
  updatePayment(p: PaymentRecord): Promise<void>;
  lockSubscription(userId: string): Promise<SubscriptionRecord>;
  saveSubscription(s: SubscriptionRecord): Promise<void>;
  /** The next due subscription renewed by billing (sandbox, paypal) that no other transaction holds (skip locked), locked. */
  claimDue(now: Date): Promise<SubscriptionRecord | null>;
  eventSeen(provider: string, eventId: string): Promise<boolean>;
  /** False when the event was recorded before. */
  recordEvent(provider: string, eventId: string, type: string): Promise<boolean>;
  findSubscriptionByRef(provider: string, ref: string): Promise<string | null>;
  /** A provider subscription that has ended: later (older) events must not bring it back. */
  markEnded(provider: string, ref: string): Promise<void>;
  isEnded(provider: string, ref: string): Promise<boolean>;
}

export interface PaymentsRepository {
  transaction<T>(fn: (tx: PaymentsTx) => Promise<T>): Promise<T>;
  findPayment(id: string): Promise<PaymentRecord | null>;
  findPaymentByRef(provider: string, ref: string): Promise<PaymentRecord | null>;
  history(userId: string): Promise<PaymentRecord[]>;
  /** Succeeded (or since refunded) payments made at or after `since`: cents kept and how many. */
  revenueSince(since: Date): Promise<{ cents: number; payments: number }>;
  /** Marks the receipt sent; false when it had been sent already. */
  claimReceipt(paymentId: string): Promise<boolean>;
}

export type Outcome =
  { status: 'succeeded'; ref?: string; periodEnd?: Date } | { status: 'failed'; message: string } | { status: 'pending' };

export interface ConfirmDetails {
  testCard: string;
  testExpiry: string;
  testCvc: string;
  paypalAction: string;
}

export interface CreatedPayment {
  id: string;
  clientSecret: string;
  approvalUrl?: string;
  /** Stripe subscriptions: the subscription id. */
  ref?: string;
  /** Stripe: the user's Customer, kept for the next subscription. */
  customerRef?: string;
}

/** A provider's event, reduced to what the product reacts to. */
export type ProviderEvent =
  | { id: string; type: string; kind: 'payment_succeeded'; payment: PaymentSeed }
  | { id: string; type: string; kind: 'payment_failed'; paymentId: string; message: string }
  | { id: string; type: string; kind: 'invoice_paid'; payment: PaymentSeed; subscriptionRef: string; periodEnd: Date }
  | { id: string; type: string; kind: 'invoice_failed'; paymentId: string; subscriptionRef: string; message: string; first: boolean }
  | {
      id: string;
      type: string;
      kind: 'subscription_updated';
      subscriptionRef: string;
      status: string;
      cancelAtPeriodEnd: boolean;
      periodEnd: Date | null;
    }
  | { id: string; type: string; kind: 'subscription_deleted'; subscriptionRef: string }
  | { id: string; type: string; kind: 'refunded'; paymentId: string; refundedCentsTotal: number }
  | { id: string; type: string; kind: 'ignored' };

/** What a provider's event says about a payment, enough to record it if we never saw it. */
export interface PaymentSeed {
  id: string;
  userId: string;
  email: string;
  type: PaymentType;
  itemId: string;
  billingCycle: BillingCycle | null;
  amountCents: number;
  ref?: string;
}

/** One payment provider behind the port: sandbox, stripe or paypal. */
export interface PaymentProvider {
  readonly name: ProviderName;
  create(input: { userId: string; email: string; item: PricedItem; method: PaymentMethod; customerRef: string }): Promise<CreatedPayment>;
  confirm(p: PaymentRecord, details: ConfirmDetails): Promise<Outcome>;
  /** Sandbox only: charges a due renewal with the saved card. */
  renew?(s: SubscriptionRecord, item: PricedItem): Promise<Outcome>;
  /** Providers that renew by themselves (stripe) are told to stop at the period end. */
  cancelAtPeriodEnd?(subscriptionRef: string): Promise<void>;
  refund?(p: PaymentRecord, cents: number): Promise<void>;
  parseWebhook?(raw: Buffer, headers: Record<string, string>): Promise<ProviderEvent>;
}

export interface Providers {
  card: PaymentProvider;
  paypal: PaymentProvider;
  byName(name: string): PaymentProvider | undefined;
  publishableKey: string;
}

export interface Receipts {
  send(p: PaymentRecord): Promise<void>;
}
