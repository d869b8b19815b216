create table jobs (
  id uuid primary key,
  owner_id uuid not null,
  status text not null check (status in ('queued', 'processing', 'completed', 'failed')),
  progress integer not null default 0 check (progress between 0 and 100),
  request jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index jobs_owner on jobs (owner_id, created_at desc);
