create table media_objects (
  id uuid primary key,
  owner_id uuid not null,
  object_key text not null unique,
  kind text not null check (kind in ('video', 'audio', 'reel', 'thumbnail')),
  display_name text not null,
  size_bytes bigint not null check (size_bytes >= 0),
  created_at timestamptz not null default now()
);
create index media_objects_owner on media_objects (owner_id, created_at desc);
