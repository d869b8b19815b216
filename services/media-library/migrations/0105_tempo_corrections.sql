-- A user's corrections of a music track's beats (halve, double, shift, tap), kept for next time and
-- applied to the analysis whenever the track is asked for, so a plan uses them without analysing
-- again. An upload keeps its owner's with its record; a library track is shared, so each user's
-- corrections of it have their own row (gone with the item).
alter table media_objects add column tempo_correction jsonb;
create table library_tempo_corrections (
  owner_id uuid not null,
  object_key text not null references library_items (object_key) on delete cascade,
  correction jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (owner_id, object_key)
);
