-- A long reel rendered as chunks on several workers records which worker rendered which chunk.
alter table jobs add column if not exists render_chunks jsonb not null default '[]'::jsonb;
