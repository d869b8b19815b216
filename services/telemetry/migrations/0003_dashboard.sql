-- The admin dashboard's facts, recorded from the EVENTS stream. Each message is applied once:
-- its id goes into processed_messages in the same transaction as its effects.
create table processed_messages (
  msg_id text primary key,
  subject text not null,
  received_at timestamptz not null default now()
);
create index processed_messages_time on processed_messages (received_at);

-- The activity feed and the 24-hour counts of facts (kept 30 days).
create table activity (
  id bigserial primary key,
  msg_id text not null unique,
  type text not null,
  user_id text,
  email text not null default '',
  login_type text not null default '',
  duration_seconds double precision,
  amount_cents bigint,
  detail text not null default '',
  occurred_at timestamptz not null
);
create index activity_time on activity (occurred_at desc, id desc);
create index activity_type_time on activity (type, occurred_at);

-- Accounts as telemetry has seen them (for user totals and the feed's e-mail); not pruned.
create table known_users (
  user_id text primary key,
  email text not null default '',
  registered_at timestamptz,
  verified_at timestamptz,
  last_login_at timestamptz
);
create index known_users_registered on known_users (registered_at);

-- When each job was submitted, first and last started, and finished (render and queue times).
create table job_times (
  job_id text primary key,
  user_id text,
  submitted_at timestamptz,
  first_started_at timestamptz,
  last_started_at timestamptz,
  finished_at timestamptz,
  outcome text
);
create index job_times_finished on job_times (finished_at);

-- The gateway's answers per replica and minute, by route template and status class.
create table request_counts (
  instance text not null,
  minute timestamptz not null,
  method text not null,
  route text not null,
  status_class text not null,
  count bigint not null,
  primary key (instance, minute, method, route, status_class)
);
create index request_counts_minute on request_counts (minute);

-- The same answers by latency bucket (bounds in proto/src/request-counts.ts).
create table request_latency (
  instance text not null,
  minute timestamptz not null,
  bucket integer not null,
  count bigint not null,
  primary key (instance, minute, bucket)
);
create index request_latency_minute on request_latency (minute);
