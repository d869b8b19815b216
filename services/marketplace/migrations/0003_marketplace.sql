-- Clips users opted in to footage offers (one per upload), with the consent and the offer.
create table marketplace_clips (
  id uuid primary key,
  upload_key text not null unique,
  user_id uuid not null,
  user_email text not null default '',
  job_id uuid not null,
  filename text not null,
  size_bytes bigint not null,
  object_key text not null default '',
  thumbnail_key text not null default '',
  status text not null default 'pending' check (status in ('pending', 'cash_offered', 'credits_offered', 'purchased', 'rejected', 'removed')),
  offer_type text check (offer_type in ('cash', 'credits')),
  cash_cents bigint not null default 0,
  credits bigint not null default 0,
  consented_at timestamptz not null,
  offered_at timestamptz,
  answered_at timestamptz,
  grant_state text not null default 'none' check (grant_state in ('none', 'pending', 'granted')),
  created_at timestamptz not null default now()
);
create index marketplace_clips_user_status on marketplace_clips (user_id, status);
create index marketplace_clips_pending_grants on marketplace_clips (grant_state) where grant_state = 'pending';

-- Accepted cash offers: the record is the source of truth (no payout rail is wired).
create table marketplace_payouts (
  id uuid primary key,
  clip_id uuid not null unique references marketplace_clips (id),
  user_id uuid not null,
  user_email text not null default '',
  filename text not null,
  amount_cents bigint not null,
  state text not null default 'pending' check (state in ('pending', 'paid')),
  created_at timestamptz not null default now(),
  paid_at timestamptz
);
