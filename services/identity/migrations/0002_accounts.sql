alter table users add column is_guest boolean not null default false;

-- Sessions: only a keyed hash of the token is stored.
create table sessions (
  token_hash text primary key,
  user_id uuid not null references users (id) on delete cascade,
  login_type text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_user on sessions (user_id);

-- E-mail verification: a link token and a 6-digit code per message, hashed, expiring, single use.
-- Same shape as sessions by design: each token table has its owner, times and index.
create table email_verifications (
  token_hash text primary key,
  user_id uuid not null references users (id) on delete cascade,
  kind text not null check (kind in ('link', 'code')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index email_verifications_user on email_verifications (user_id);

-- Fixed-window attempt counters shared by every replica.
create table rate_limits (
  key text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (key, window_start)
);

create table guest_pass (
  singleton boolean primary key default true check (singleton),
  enabled boolean not null,
  user_id uuid references users (id),
  changed_by uuid not null,
  changed_at timestamptz not null default now()
);

-- The outbox table comes from the kit (services/kit/migrations/outbox.sql).
