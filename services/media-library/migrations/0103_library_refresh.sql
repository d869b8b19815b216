-- A library item's analysis redone by a newer engine changes what lists show (a track's tempo):
-- updated_at moves with it, so every replica's catalogue sees the change (its stamp reads it). The
-- claim keeps two replicas starting together off the same item's redo.
alter table library_items
  add column updated_at timestamptz not null default now(),
  add column analysis_claimed_by text,
  add column analysis_claimed_at timestamptz;
