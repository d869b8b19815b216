alter table jobs add column message text not null default '';
alter table jobs add column idempotency_key text;
alter table jobs add column estimate_credits integer not null default 0;
alter table jobs add column output_key text not null default '';
alter table jobs add column thumbnail_key text not null default '';
alter table jobs add column duration_sec double precision not null default 0;
alter table jobs add column size_bytes bigint not null default 0;
alter table jobs add column finished_at timestamptz;
-- One job per (user, Idempotency-Key): the same request sent twice makes one job.
create unique index jobs_idempotency on jobs (owner_id, idempotency_key) where idempotency_key is not null;

-- The outbox table comes from the kit (services/kit/migrations/outbox.sql).
