create table footage_clips (
  id uuid primary key,
  owner_id uuid not null,
  object_key text not null unique,
  status text not null default 'pending' check (status in ('pending', 'cash_offered', 'credits_offered', 'purchased', 'rejected')),
  created_at timestamptz not null default now()
);
