-- The transactional outbox (services/kit/src/outbox.ts), the same in every service that uses it.
-- "if not exists": databases made before this migration came from the kit have the table already.
create table if not exists outbox (
  id bigserial primary key,
  subject text not null,
  msg_id text not null unique,
  payload text not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index if not exists outbox_pending on outbox (id) where published_at is null;
