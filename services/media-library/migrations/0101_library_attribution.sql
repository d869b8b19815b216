-- Items bought from the footage marketplace: who filmed them (the uploader's e-mail and user id)
-- and the marketplace clip they came from, so a repeated purchase event adds nothing. Null for
-- imported stock content.
alter table library_items add column attribution text;
alter table library_items add column attribution_user_id text;
alter table library_items add column source_clip_id text unique;
