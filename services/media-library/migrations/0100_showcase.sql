-- The showcase: reels their owners shared, featured by an admin (or the system's demo task) with a
-- category; views count real plays. Numbered far from the other migrations of this wave.
alter table reels add column share_to_showcase boolean not null default false;

create table showcase_entries (
  reel_id uuid primary key references reels (id),
  category text not null check (length(category) between 1 and 40),
  featured_by uuid,
  featured_at timestamptz not null default now(),
  views bigint not null default 0,
  -- Three JPEG frames across the reel, for the gallery's hover preview.
  preview_keys jsonb not null default '[]'
);
create index showcase_entries_category on showcase_entries (category, featured_at desc);
