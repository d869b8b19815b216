-- Idempotency-Key: the first answer to a key, per account, for 24 hours (POST /jobs/assemble,
-- /jobs/plan, /uploads/file). status null: the first request is still running. Shared by every
-- gateway replica.
create table idempotency_keys (
  owner_id text not null,
  key text not null,
  fingerprint text not null,
  status integer,
  body text,
  created_at timestamptz not null,
  primary key (owner_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
