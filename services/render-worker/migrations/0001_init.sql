create table analysis_cache (
  object_key text not null,
  analyzer_version integer not null,
  result jsonb not null,
  created_at timestamptz not null default now(),
  primary key (object_key, analyzer_version)
);
