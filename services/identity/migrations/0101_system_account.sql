-- The system account that owns the first-start demo reels (SYSTEM_ACCOUNT in @reelsmith/proto).
-- Its password hash is random bytes in argon2id form: no password matches it, and it is never
-- verified, so nobody signs in as it; identity treats it as unlimited, so billing never charges it.
insert into users (id, email, password_hash, is_admin)
values ('00000000-0000-4000-8000-00000000de30', 'demos@reelsmith.local', '$argon2id$v=19$m=19456,t=2,p=1$RYtXGTdCneYRtl3S9gMzYA$D7M6KJYZgES6QfiSD6KiMjb7GMSXTPMUD+yDtXNmM9Q', false)
on conflict do nothing;
