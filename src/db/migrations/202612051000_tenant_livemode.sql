-- Test mode, API side (docs/design.md "Test mode"). A tenant knows its mode, set once when it is
-- made (false in an account's test twin: migration 202612050900_test_mode). It decides the way its
-- provider calls take (test tenants always reach the built-in emulator, whatever PROVIDER says) and
-- which CAF signatures it trusts (the emulator's only in test mode): both read the tenant row, so
-- the fact lives on it. Existing tenants are live.
alter table tenants add column livemode boolean not null default true;
