-- A tenant's logo for its printed documents (docs/dte.md, "The logo"): the canonical PNG the
-- service re-encoded from the upload (src/pdf/logo.ts), never the uploaded bytes. Its own table so
-- that reading a tenant never reads the image.
create table tenant_logos (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  png bytea not null,
  width integer not null,
  height integer not null,
  source_format text not null,
  source_bytes integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
