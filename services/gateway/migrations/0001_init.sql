-- One row naming this installation; lets operators (and tests) see that a restart kept its data.
create table installation (
  singleton boolean primary key default true check (singleton),
  id uuid not null,
  created_at timestamptz not null default now()
);
