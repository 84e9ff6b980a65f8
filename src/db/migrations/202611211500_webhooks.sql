-- Webhooks (issue 6): endpoints, messages, per-endpoint deliveries with leases, and the attempt log.
-- Delivery invariants are written next to the code in src/modules/webhooks/delivery/delivery-worker.ts.

create table webhook_endpoints (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  url text not null,
  description text,
  -- Event names this endpoint receives; an empty array means every event.
  filter_types jsonb not null default '[]',
  signature_scheme text not null default 'hmac-sha256-body',
  -- The whsec_ secret, envelope-encrypted (src/secrets/envelope.ts), bound to account and endpoint.
  secret_enc bytea not null,
  -- After a rotation the old secret still signs (standard-webhooks scheme) until this time.
  previous_secret_enc bytea,
  previous_secret_expires_at timestamptz,
  disabled boolean not null default false,
  disabled_reason text,
  disabled_at timestamptz,
  -- Start of the current run of failed attempts (null after any success): drives auto-disable.
  failing_since timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_endpoints_account on webhook_endpoints (account_id, created_at desc, id desc);

-- One message per event; its id is the outbox event's id and the `webhook-id` header.
create table webhook_messages (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  event_type text not null,
  -- The exact bytes delivered and signed ({event, timestamp, data}), copied from the outbox.
  payload text not null,
  created_at timestamptz not null
);
create index webhook_messages_account on webhook_messages (account_id, created_at desc, id desc);
create index webhook_messages_created on webhook_messages (created_at);

-- One row per (message, endpoint) send, including resends. `pending` with a future
-- `locked_until` is in flight; the lease holder is `lease_id`. endpoint_id has no foreign key so
-- the history survives the endpoint's deletion.
create table webhook_deliveries (
  id uuid primary key,
  account_id uuid not null,
  message_id uuid not null references webhook_messages (id) on delete cascade,
  endpoint_id uuid not null,
  status text not null default 'pending',
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  locked_until timestamptz,
  lease_id uuid,
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_message on webhook_deliveries (message_id);
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, status);

create table webhook_attempts (
  id uuid primary key,
  account_id uuid not null,
  message_id uuid not null references webhook_messages (id) on delete cascade,
  delivery_id uuid not null,
  endpoint_id uuid not null,
  attempt_number integer not null,
  status text not null,
  response_status_code integer,
  response_body text,
  error text,
  duration_ms integer not null,
  attempted_at timestamptz not null,
  next_attempt_at timestamptz
);
create index webhook_attempts_message on webhook_attempts (message_id, attempted_at);

-- certificate.expiring fires once per certificate: this marker is taken in the same transaction as
-- the event. A table of its own (not a column) so it depends on no other module's migration.
create table certificate_expiry_notices (
  certificate_id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  notified_at timestamptz not null
);
