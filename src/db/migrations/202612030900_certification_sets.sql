-- The SII's test sets a tenant uploads to certify (docs/certification.md). One row per distinct
-- set per tenant: the same text uploaded again (by the SHA-256 of its decoded text, CR dropped)
-- is the same set. `text` keeps what was uploaded, decoded, so a later parser can read it again;
-- `parsed` is what the parser read when it was uploaded.
create table certification_sets (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  sha256 text not null,
  text text not null,
  parsed jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint certification_sets_once unique (tenant_id, sha256)
);
create index certification_sets_tenant_list on certification_sets (tenant_id, created_at desc, id desc);
create index certification_sets_account on certification_sets (account_id, id);
