-- The billing account of a user: plan and subscription record (free by default).
alter table accounts add column subscription_status text not null default 'inactive'
  check (subscription_status in ('active', 'inactive', 'canceled', 'past_due'));
alter table accounts add column billing_cycle text check (billing_cycle in ('monthly', 'yearly'));
alter table accounts add column next_billing_at timestamptz;
alter table accounts add constraint accounts_plan check (plan in ('free', 'standard', 'mid-tier', 'corporate'));

-- Append-only credits ledger; the balance is the sum of a user's rows. Every row has a unique
-- idempotency key, so a grant, purchase, hold or refund happens once however often it is asked.
create table ledger (
  id bigserial primary key,
  user_id uuid not null references accounts (user_id),
  delta bigint not null check (delta <> 0),
  kind text not null check (kind in ('grant', 'purchase', 'hold', 'release')),
  idempotency_key text not null unique,
  job_id uuid,
  reason text not null default '',
  created_at timestamptz not null default now()
);
create index ledger_user on ledger (user_id);

-- One reservation per job: the daily free video, held credits, or an unlimited (admin) record.
create table reservations (
  job_id uuid primary key,
  user_id uuid not null references accounts (user_id),
  kind text not null check (kind in ('free_video', 'credits', 'unlimited')),
  status text not null check (status in ('held', 'captured', 'released')),
  credits bigint not null check (credits >= 0),
  free_date date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- At most one free video per user per UTC day: the primary key is the guarantee.
create table daily_free_uses (
  user_id uuid not null references accounts (user_id),
  use_date date not null,
  job_id uuid not null,
  primary key (user_id, use_date)
);

-- The outbox table comes from the kit (services/kit/migrations/outbox.sql).
