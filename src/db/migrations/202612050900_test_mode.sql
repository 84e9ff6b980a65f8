-- Test mode (issue 29; docs/design.md "Test mode"). An account's test-mode data lives under a
-- second row of `accounts`, the account's test twin (live_account_id names its live account). Every
-- table's `account_id` is then the scope of one account in one mode: the stores, which already
-- scope every query by account, keep test and live apart without a second condition, and a key
-- of one mode can never name an object of the other (404, as for another account's object).
-- The twin is made on first use (the first test key); existing accounts and their data are live.
alter table accounts add column live_account_id uuid references accounts (id) on delete cascade;
create unique index accounts_test_twin_key on accounts (live_account_id) where live_account_id is not null;
-- The twin's name and e-mail are copies taken when it is made and never read (the account's
-- settings are its live row's); only live accounts must be unique by e-mail.
drop index accounts_email_key;
create unique index accounts_email_key on accounts (lower(email)) where live_account_id is null;

-- A key's mode, fixed at creation: `sk_live_…` keys live in the account's live scope, `sk_test_…`
-- keys in its twin's. Kept on the key so authenticating never needs a second lookup.
alter table api_keys add column livemode boolean not null default true;
