-- The stock video and music libraries: items anyone may use in a job. The content hash makes a
-- re-import of the same file change nothing.
create table library_items (
  id uuid primary key,
  key text not null unique,
  kind text not null check (kind in ('video', 'audio')),
  filename text not null,
  category text not null,
  content_hash text not null unique,
  object_key text not null unique,
  size_bytes bigint not null check (size_bytes >= 0),
  duration_sec double precision not null,
  width integer not null default 0,
  height integer not null default 0,
  video_codec text not null default '',
  audio_codec text not null default '',
  thumbnail_key text not null default '',
  preview_frame_keys text[] not null default '{}',
  bpm double precision not null default 0,
  peaks real[] not null default '{}',
  analysis_status text not null check (analysis_status in ('done', 'failed')),
  analysis jsonb,
  created_at timestamptz not null default now()
);
-- Pages are ordered by lower(filename), id; with or without a category.
create index library_items_list on library_items (kind, lower(filename), id);
create index library_items_category on library_items (kind, category, lower(filename), id);

-- When the retention sweeper deletes a reel (null: kept without limit).
alter table reels add column expires_at timestamptz;
create index reels_expiry on reels (expires_at) where deleted_at is null and expires_at is not null;
