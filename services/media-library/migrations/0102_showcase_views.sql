-- Views count real plays: one per viewer per reel per hour. A viewer is what the gateway sends
-- ("user:<id>" signed in, else "anon:<sha256 of address and user agent>"); the row remembers when
-- that viewer's play was last counted and is pruned once the hour is over, so no viewer is kept
-- for longer than the window.
create table showcase_views (
  reel_id uuid not null references showcase_entries (reel_id) on delete cascade,
  viewer text not null check (length(viewer) between 1 and 200),
  counted_at timestamptz not null,
  primary key (reel_id, viewer)
);
create index showcase_views_counted_at on showcase_views (counted_at);
