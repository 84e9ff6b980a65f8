-- Documents suppliers send to a tenant (intercambio; docs/received.md, docs/decisions.md §13).

-- CodEnvio / IdRespuesta of the RespuestaEnvioDTE: a positive integer of at most 10 digits that
-- the receptor generates; one sequence serves every tenant (unique per receptor a fortiori).
create sequence received_envio_code_seq minvalue 1 maxvalue 9999999999 no cycle;

-- One row per upload (POST …/received): what was answered, with the signed answer itself.
create table received_envios (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  cod_envio bigint not null unique,
  envio_dte_id text not null,
  nombre_envio text not null,
  rut_emisor text not null,
  rut_envia text not null,
  sha256 text not null,
  -- Per document of the envelope: {index, tipoDte, folio, …, estadoRecepDte, outcome, receivedDteId, error}.
  documents jsonb not null,
  respuesta bytea not null,
  created_at timestamptz not null
);
create index received_envios_tenant on received_envios (tenant_id, created_at desc, id desc);

-- One row per document, once per tenant (issuer, type, folio): a repeated upload finds it here.
create table received_dtes (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  envio_id uuid not null references received_envios (id) on delete cascade,
  rut_emisor text not null,
  tipo_dte integer not null,
  folio bigint not null,
  fecha_emision date not null,
  rut_receptor text not null,
  razon_social_emisor text not null,
  giro_emisor text,
  monto_neto bigint,
  monto_exento bigint,
  iva bigint,
  monto_total bigint not null,
  -- The issuer's authorisation from the envelope's carátula, for the printed document.
  fecha_resolucion date not null,
  numero_resolucion integer not null,
  -- The DTE exactly as it was verified: the envelope's bytes with an XML declaration.
  xml bytea not null,
  status text not null default 'received',
  received_at timestamptz not null,
  acceptance_deadline timestamptz not null,
  -- The tenant's answers (ACD, ERM, RCD, RFP, RFT), in order: [{accion, glosa, at}].
  acciones jsonb not null default '[]',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint received_dtes_once unique (tenant_id, rut_emisor, tipo_dte, folio)
);
create index received_dtes_tenant_list on received_dtes (tenant_id, created_at desc, id desc);
create index received_dtes_account on received_dtes (account_id, id);
