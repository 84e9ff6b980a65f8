-- Dashboard sessions (issue 7). The cookie holds a random 256-bit token; only its SHA-256 is kept
-- here, so a copy of the database cannot be replayed as a login. Rows without an account are the
-- short pre-login sessions that carry the CSRF token of the login and sign-up forms; logging in
-- always replaces the row (a new token), so a session id planted before login is worthless after.
create table dashboard_sessions (
  token_hash text primary key,
  account_id uuid references accounts (id) on delete cascade,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  -- Absolute expiry; the idle expiry is last_seen_at + the configured idle time.
  expires_at timestamptz not null
);
create index dashboard_sessions_account on dashboard_sessions (account_id);
create index dashboard_sessions_expires on dashboard_sessions (expires_at);
