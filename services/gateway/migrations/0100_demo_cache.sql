-- The demo gallery's YouTube answer, cached for an hour and shared by every gateway replica; the
-- last good copy is served when YouTube fails.
create table demo_cache (
  key text primary key,
  body jsonb not null,
  fetched_at timestamptz not null
);
