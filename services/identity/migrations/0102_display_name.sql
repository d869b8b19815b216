-- An account's optional public name, shown on the Hall of Fame's creator cards (never the e-mail).
-- Null: none, and the account is not listed there. The rule (1-40 characters, trimmed, NFC, no
-- control, bidi or zero-width characters) is @reelsmith/proto's displayNameProblem.
alter table users add column display_name text check (display_name is null or length(display_name) between 1 and 40);

-- The system account (0101) renders the demo reels: its name on the Hall of Fame is Reelsmith.
update users set display_name = 'Reelsmith' where id = '00000000-0000-4000-8000-00000000de30' and display_name is null;
