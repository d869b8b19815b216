-- Webhooks: a user's endpoints (each with its signing secret), one callback secret per account
-- (for a job's callback_url), and every delivery with its log. Secrets are kept as given: the
-- orchestrator signs with them.
create table webhook_endpoints (
  id uuid primary key,
  owner_id uuid not null,
  url text not null,
  events text[] not null,
  secret text not null,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index webhook_endpoints_owner on webhook_endpoints (owner_id) where deleted_at is null;

create table webhook_accounts (
  owner_id uuid primary key,
  callback_secret text not null
);

create table webhook_deliveries (
  id uuid primary key,
  owner_id uuid not null,
  event_id text not null,
  event_type text not null,
  job_id text not null default '',
  endpoint_id uuid,
  url text not null,
  payload text not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  round integer not null default 0,
  last_status_code integer not null default 0,
  last_error text not null default '',
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index webhook_deliveries_owner on webhook_deliveries (owner_id, created_at desc);
