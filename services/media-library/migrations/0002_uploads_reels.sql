alter table media_objects add column duration_sec double precision not null default 0;
alter table media_objects add column width integer not null default 0;
alter table media_objects add column height integer not null default 0;
alter table media_objects add column video_codec text not null default '';
alter table media_objects add column audio_codec text not null default '';
alter table media_objects add column thumbnail_key text not null default '';
alter table media_objects add column analysis_status text not null default 'pending' check (analysis_status in ('pending', 'done', 'failed'));
alter table media_objects add column analysis jsonb;
create index media_objects_pending on media_objects (created_at) where analysis_status = 'pending';

-- Finished videos ("My Reels"); the id is the job id, so adding one twice is harmless.
create table reels (
  id uuid primary key,
  owner_id uuid not null,
  title text not null,
  description text not null default '',
  object_key text not null,
  thumbnail_key text not null default '',
  duration_sec double precision not null,
  size_bytes bigint not null,
  music_used boolean not null,
  enable_beat_mapping boolean not null,
  enable_intelligence boolean not null,
  pacing_preset text not null,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index reels_owner on reels (owner_id, created_at desc) where deleted_at is null;
