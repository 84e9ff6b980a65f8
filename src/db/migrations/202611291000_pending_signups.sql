-- Dashboard sign-ups waiting for their e-mail to be confirmed (only when SMTP_URL is set; see
-- docs/dashboard.md "Sign-up"). One per e-mail address: signing up again replaces it. The
-- confirmation token is kept only as its SHA-256; the password only as its scrypt hash.
create table pending_signups (
  email_key text primary key,
  email text not null,
  name text not null,
  password_hash text not null,
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index pending_signups_expires_at on pending_signups (expires_at);
