-- Folios (docs/design.md §6, docs/folios.md) and DTE issuing (docs/design.md §7, docs/dte.md).

-- One CAF: an authorized folio range of one tenant and document type. next_folio is the next
-- folio to hand out (the range is used up when next_folio > hasta). The CAF block (DA + the SII's
-- FRMA) is public; its private key (RSASK) is envelope-encrypted, owner-bound to this row.
create table folio_ranges (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_dte integer not null,
  desde bigint not null,
  hasta bigint not null,
  next_folio bigint not null,
  fecha_autorizacion date not null,
  -- Last usable day + 1 (FA + 180 days for 33, 43, 46, 56, 61); null = never expires.
  vencimiento date,
  idk integer not null,
  caf_block text not null,
  private_key_enc bytea not null,
  request_id uuid,
  created_at timestamptz not null,
  constraint folio_ranges_bounds check (desde >= 1 and hasta >= desde and next_folio >= desde and next_folio <= hasta + 1)
);
create unique index folio_ranges_tenant_start on folio_ranges (tenant_id, tipo_dte, desde);
create index folio_ranges_available on folio_ranges (tenant_id, tipo_dte, desde) where next_folio <= hasta;

-- Per tenant and type: the folio.low threshold, and whether the event may fire again.
create table folio_settings (
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_dte integer not null,
  account_id uuid not null references accounts (id) on delete cascade,
  low_threshold integer not null default 10,
  low_armed boolean not null default true,
  updated_at timestamptz not null,
  primary key (tenant_id, tipo_dte)
);

create table folio_requests (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_dte integer not null,
  cantidad integer not null,
  status text not null default 'pending',
  range_id uuid references folio_ranges (id) on delete set null,
  error_status integer,
  error_code text,
  error_message text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  completed_at timestamptz
);
create index folio_requests_tenant on folio_requests (tenant_id, created_at desc, id desc);

-- Every folio ever handed out, exactly once (the primary key is the folio): `reserved` by the
-- allocation, `used` in the same transaction that inserts its DTE, or `void` when the create that
-- reserved it never finished. A folio is never handed out again, whatever its state.
create table folio_allocations (
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_dte integer not null,
  folio bigint not null,
  account_id uuid not null references accounts (id) on delete cascade,
  range_id uuid not null references folio_ranges (id) on delete cascade,
  status text not null default 'reserved',
  dte_id uuid,
  reserved_at timestamptz not null,
  primary key (tenant_id, tipo_dte, folio)
);
create index folio_allocations_stale on folio_allocations (reserved_at) where status = 'reserved';

-- Issued documents. `xml` is the signed DTE exactly as signed (ISO-8859-1 bytes): never rewritten.
create table dtes (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_dte integer not null,
  folio bigint not null,
  status text not null default 'created',
  fecha_emision date not null,
  receptor jsonb not null,
  detalle jsonb not null,
  referencias jsonb not null default '[]',
  forma_pago integer,
  monto_neto bigint not null,
  monto_exento bigint not null,
  iva bigint not null,
  monto_total bigint not null,
  xml bytea not null,
  envio_id uuid,
  track_id text,
  sii_estado text,
  sii_glosa text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint dtes_folio_once unique (tenant_id, tipo_dte, folio)
);
create index dtes_tenant_list on dtes (tenant_id, created_at desc, id desc);
create index dtes_account on dtes (account_id, id);

-- Every state a DTE went through, for the dashboard.
create table dte_status_history (
  id bigserial primary key,
  dte_id uuid not null references dtes (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  previous_status text,
  status text not null,
  sii_estado text,
  sii_glosa text,
  track_id text,
  created_at timestamptz not null
);
create index dte_status_history_dte on dte_status_history (dte_id, id);

-- Uploads: one EnvioDTE or EnvioBOLETA per row, its envelope bytes and the SII's answers.
create table dte_envios (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  tipo_envio text not null,
  status text not null default 'pending',
  dte_ids jsonb not null,
  envelope bytea,
  track_id text,
  sii_estado text,
  sii_glosa text,
  upload_response bytea,
  status_response bytea,
  error_code text,
  polls integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index dte_envios_tenant on dte_envios (tenant_id, created_at desc, id desc);
