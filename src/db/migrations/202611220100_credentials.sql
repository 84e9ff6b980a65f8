-- Tenant credentials (issue 3). Secrets never sit here in plain text: the .pfx is a data-keyring
-- envelope (pfx_ciphertext, staged_pfx), and the .pfx password and the billing-provider API key
-- live in the separate secrets store, referenced by *_ref. The certificate itself (public) is kept
-- in the clear for display and signing.

create table tenant_api_keys (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  secret_ref text not null,
  verified_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table tenant_certificates (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  rut_certificado text not null,
  nombre_titular text not null,
  fecha_vencimiento date not null,
  es_principal boolean not null,
  subject text not null,
  issuer text not null,
  serial_number text not null,
  fingerprint_sha256 text not null,
  not_before timestamptz not null,
  not_after timestamptz not null,
  certificate_der bytea not null,
  pfx_ciphertext bytea not null,
  password_ref text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index tenant_certificates_tenant on tenant_certificates (account_id, tenant_id, created_at, id);
create unique index tenant_certificates_one_principal on tenant_certificates (tenant_id) where es_principal;
create unique index tenant_certificates_fingerprint on tenant_certificates (tenant_id, fingerprint_sha256);

-- Activation links: the token is stored only as its SHA-256. `expired` is written when a pending
-- link past its expiry is replaced; until then it is pending with expires_at in the past.
-- The hosted page's progress is kept on the link (staged_*), moved to the tenant on completion.
create table activation_links (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  token_hash text not null unique,
  status text not null check (status in ('pending', 'invalidated', 'expired', 'completed')),
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  invalidated_at timestamptz,
  completed_at timestamptz,
  api_key_ref text,
  api_key_verified_at timestamptz,
  staged_certificate jsonb,
  staged_pfx bytea,
  staged_password_ref text
);
create unique index activation_links_one_pending on activation_links (tenant_id) where status = 'pending';
create index activation_links_tenant on activation_links (account_id, tenant_id, created_at);
