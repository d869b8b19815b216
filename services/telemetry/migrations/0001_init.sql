create table activity_events (
  id bigserial primary key,
  type text not null,
  user_id uuid,
  payload jsonb not null default '{}',
  occurred_at timestamptz not null default now()
);
create index activity_events_time on activity_events (occurred_at desc);
