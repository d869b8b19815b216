-- API keys: a program's bearer secret (rs_live_...), stored only as a keyed hash (the lookup)
-- and a sha256 (what the gateways' caches are keyed by, sent when the key is revoked).
create table api_keys (
  id uuid primary key,
  user_id uuid not null,
  name text not null,
  prefix text not null,
  scopes text[] not null,
  secret_hash text not null unique,
  public_hash text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_user on api_keys (user_id, created_at desc);
