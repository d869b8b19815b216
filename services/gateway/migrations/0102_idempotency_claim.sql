-- Idempotency-Key: the random token of the request holding a key. Saving the answer and freeing
-- the key name it, so a request whose key was taken over (it ran past the stale limit) can neither
-- overwrite nor delete the row of the request that took it.
alter table idempotency_keys add column claim text not null default '';
