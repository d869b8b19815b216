-- Password reset links are single-use, expiring tokens like the verification link: stored only as
-- keyed hashes in the same table, under their own kind.
alter table email_verifications drop constraint if exists email_verifications_kind_check;
alter table email_verifications add constraint email_verifications_kind_check check (kind in ('link', 'code', 'reset'));
