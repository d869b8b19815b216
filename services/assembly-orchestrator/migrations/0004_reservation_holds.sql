-- A reservation the orchestrator asked billing for and has not settled yet (captured or
-- released). The row is written before billing is asked, so no failure between reserving and
-- recording the job, not even a crash, can leave money held: the sweeper settles old holds.
create table reservation_holds (
  job_id uuid primary key,
  owner_id uuid not null,
  created_at timestamptz not null default now()
);
-- The watchdog's scan: jobs a worker is running, oldest report first.
create index jobs_processing on jobs (updated_at) where status = 'processing';
