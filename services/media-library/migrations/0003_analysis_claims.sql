-- Which replica took a pending analysis, and when: replicas claim pending analyses with
-- FOR UPDATE SKIP LOCKED so that no two of them analyse the same media. A claim older than the
-- lease (MediaService ANALYSIS_LEASE_MS) belongs to a replica that died and may be taken again.
alter table media_objects add column analysis_claimed_by text;
alter table media_objects add column analysis_claimed_at timestamptz;
