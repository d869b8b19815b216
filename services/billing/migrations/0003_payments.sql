-- Payments (issue 14): refunds take credits back, so the ledger gains a refund kind.
alter table ledger drop constraint ledger_kind_check;
alter table ledger add constraint ledger_kind_check check (kind in ('grant', 'purchase', 'hold', 'release', 'refund'));

-- The subscription's renewal side: who renews it, what to charge, whether it ends at the period end.
alter table accounts add column cancel_at_period_end boolean not null default false;
alter table accounts add column provider text check (provider in ('sandbox', 'stripe', 'paypal'));
-- The provider's subscription id (stripe) or the saved sandbox card.
alter table accounts add column provider_ref text not null default '';
-- The user's customer at the provider (a Stripe Customer), reused for the next subscription.
alter table accounts add column provider_customer text not null default '';
-- Where receipts of renewals go.
alter table accounts add column email text not null default '';
create index accounts_due on accounts (next_billing_at) where subscription_status = 'active' and provider in ('sandbox', 'paypal');
create index accounts_provider_ref on accounts (provider, provider_ref) where provider_ref <> '';

-- One row per charge. The id is the provider's payment id (sandbox sbx_..., stripe pi_... or
-- in_..., a PayPal order id, renewal:<user>:<period start>): credits are granted under the ledger
-- key payment:<id>, so once per payment.
create table payments (
  id text primary key,
  user_id uuid not null references accounts (user_id),
  email text not null default '',
  provider text not null check (provider in ('sandbox', 'stripe', 'paypal')),
  type text not null check (type in ('credits', 'subscription', 'renewal')),
  item_id text not null,
  item_name text not null,
  plan text,
  billing_cycle text check (billing_cycle in ('monthly', 'yearly')),
  amount_cents integer not null check (amount_cents > 0),
  currency text not null default 'usd',
  credits integer not null check (credits > 0),
  method text not null check (method in ('card', 'paypal')),
  status text not null check (status in ('pending', 'succeeded', 'failed', 'refunded')),
  failure_message text not null default '',
  refunded_cents integer not null default 0,
  refunded_credits integer not null default 0,
  provider_ref text not null default '',
  receipt_sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index payments_user on payments (user_id, created_at desc);
create index payments_ref on payments (provider, provider_ref) where provider_ref <> '';

-- Webhook events already applied, by the provider's event id.
create table webhook_events (
  provider text not null,
  event_id text not null,
  type text not null,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);

-- Provider subscriptions that have ended: an older event arriving late cannot bring one back.
create table ended_subscriptions (
  provider text not null,
  ref text not null,
  primary key (provider, ref)
);
