create table users (
  id uuid primary key,
  email text not null,
  password_hash text not null,
  is_admin boolean not null default false,
  email_verified_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index users_email_lower on users (lower(email));
