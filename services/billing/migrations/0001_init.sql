create table accounts (
  user_id uuid primary key,
  plan text not null default 'free',
  created_at timestamptz not null default now()
);
