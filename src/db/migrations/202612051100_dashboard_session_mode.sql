-- Test mode in the dashboard (issue 29; docs/dashboard.md "Test mode"). A logged-in session looks
-- at one mode of its account at a time: live (the default, so every existing and every new session
-- starts on real data) or test (the account's test twin, migration 202612050900_test_mode). The
-- dashboard switches it with a CSRF-protected POST /mode; a new login always starts in live.
alter table dashboard_sessions add column mode text not null default 'live' check (mode in ('live', 'test'));
