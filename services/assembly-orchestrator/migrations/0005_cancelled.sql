-- Issue 20: a user may cancel a queued or processing job. 'finalizing': the worker's completion
-- is recorded (the job can no longer be cancelled) while the charge is made.
alter table jobs drop constraint if exists jobs_status_check;
alter table jobs add constraint jobs_status_check
  check (status in ('queued', 'processing', 'finalizing', 'completed', 'failed', 'cancelled'));
create index if not exists jobs_owner_active on jobs (owner_id, created_at desc) where status in ('queued', 'processing', 'finalizing');
