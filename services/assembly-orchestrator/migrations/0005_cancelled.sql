-- Issue 20: a user may cancel a queued or processing job.
alter table jobs drop constraint if exists jobs_status_check;
alter table jobs add constraint jobs_status_check check (status in ('queued', 'processing', 'completed', 'failed', 'cancelled'));
create index if not exists jobs_owner_active on jobs (owner_id, created_at desc) where status in ('queued', 'processing');
