-- When a job first used an upload. Uploads no job used within a day are deleted, and the bytes of
-- a user's unused uploads are limited by plan (services/media-library/src/domain/media.service.ts).
alter table media_objects add column used_at timestamptz;
create index media_objects_unused on media_objects (owner_id, created_at) where used_at is null;
