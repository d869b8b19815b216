-- The latest delivery of the work message a worker started: reports from an older delivery (a
-- worker that lost its message to a redelivery) no longer move the job.
alter table jobs add column attempt integer not null default 0;
