-- Star ratings of featured reels: one row per signed-in user and reel. Rating again replaces that
-- user's stars (it never adds a second vote); the average and count are computed from the rows.
create table showcase_ratings (
  reel_id uuid not null references showcase_entries (reel_id) on delete cascade,
  user_id uuid not null,
  stars smallint not null check (stars between 1 and 5),
  rated_at timestamptz not null default now(),
  primary key (reel_id, user_id)
);
create index showcase_ratings_user on showcase_ratings (user_id);
