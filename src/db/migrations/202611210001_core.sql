-- Foundation: accounts, API keys, tenants, request conventions (idempotency, rate limits),
-- the event outbox and the job queue shared by every module.

create table accounts (
  id uuid primary key,
  name text not null,
  email text not null,
  password_hash text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

-- API keys are stored as SHA-256 of the full secret; `prefix` is only for display.
create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  name text,
  key_hash text not null unique,
  prefix text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_account on api_keys (account_id, created_at desc, id desc);

create table tenants (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  rut_empresa text not null,
  razon_social text not null,
  giro text not null,
  direccion text not null,
  comuna text not null,
  ciudad text not null,
  numero_resolucion integer not null,
  fecha_resolucion date not null,
  acteco jsonb not null default '[]',
  ambiente text not null default 'produccion',
  email text,
  status text not null default 'pending_credentials',
  -- Credential summary kept on the tenant by the credentials module (the secrets live elsewhere).
  api_key_verified_at timestamptz,
  certificate_configured boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tenants_account on tenants (account_id, created_at desc, id desc);

-- Idempotency-Key records: the first request takes the row (status null = in flight); the
-- response is stored when it completes and replayed for 24 h.
create table idempotency_keys (
  account_id uuid not null references accounts (id) on delete cascade,
  key text not null,
  request_hash text not null,
  status_code integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz not null default now(),
  locked_until timestamptz not null,
  primary key (account_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

-- Token buckets shared by every process that uses this database.
create table rate_limit_buckets (
  key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null,
  last_allowed boolean not null default true
);

-- Outbox: events are inserted in the same transaction as the change that caused them, and
-- dispatched to webhook endpoints by workers after commit (src/events, src/modules/webhooks).
create table outbox_events (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  event_type text not null,
  -- The JSON body exactly as it will be delivered and signed ({event, timestamp, data}); text, not
  -- jsonb, so its bytes and key order never change between attempts.
  payload text not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz
);
create index outbox_events_pending on outbox_events (created_at) where dispatched_at is null;

-- Job queue on FOR UPDATE SKIP LOCKED; works the same on PGlite and PostgreSQL.
create table jobs (
  id bigserial primary key,
  queue text not null,
  payload jsonb not null default '{}',
  status text not null default 'pending',
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  max_attempts integer not null default 10,
  locked_until timestamptz,
  last_error text,
  singleton_key text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index jobs_ready on jobs (run_at) where status in ('pending', 'running');
create unique index jobs_singleton on jobs (singleton_key) where singleton_key is not null and status in ('pending', 'running');
