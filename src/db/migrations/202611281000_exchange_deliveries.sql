-- Outbound exchange (intercambio; docs/decisions.md §13, docs/exchange.md): each accepted document that is
-- not a boleta is e-mailed to its receptor as an EnvioDTE addressed to it, with its PDF.

-- One row per delivery of one document: the automatic one when it is accepted, and any resends.
create table exchange_deliveries (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  dte_id uuid not null references dtes (id) on delete cascade,
  -- 'accepted' (written in the transaction that records the acceptance) or 'resend' (POST …/deliveries).
  trigger text not null,
  -- pending → sent | failed; skipped when there is nothing to send to (skip_reason says why).
  status text not null,
  skip_reason text,
  -- The receptor's exchange address at the time (null when skipped); never logged.
  recipient text,
  -- How it went out: 'smtp' (SMTP_URL) or 'mailbox' (the embedded local mailbox); null until sent.
  transport text,
  attempts integer not null default 0,
  max_attempts integer not null,
  last_error_code text,
  last_error_message text,
  -- The Message-ID header (the same on every attempt of one delivery) and the server's last reply.
  message_id text,
  smtp_response text,
  next_attempt_at timestamptz,
  sent_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index exchange_deliveries_dte on exchange_deliveries (account_id, dte_id, created_at, id);
-- One automatic delivery per document, whatever happens to the poll that records the acceptance.
create unique index exchange_deliveries_once on exchange_deliveries (dte_id) where trigger = 'accepted';

-- The embedded default's local mailbox (no SMTP_URL): the messages that would have gone out.
create table exchange_mailbox (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  -- One message per delivery: a delivery job run again after a crash finds it there.
  delivery_id uuid not null unique references exchange_deliveries (id) on delete cascade,
  message_id text not null,
  from_address text not null,
  to_address text not null,
  subject text not null,
  -- The whole message as it would have been sent (RFC 5322, MIME).
  raw bytea not null,
  created_at timestamptz not null
);
create index exchange_mailbox_account on exchange_mailbox (account_id, created_at desc, id desc);

create table exchange_mailbox_attachments (
  mailbox_id uuid not null references exchange_mailbox (id) on delete cascade,
  idx integer not null,
  filename text not null,
  content_type text not null,
  content bytea not null,
  primary key (mailbox_id, idx)
);
