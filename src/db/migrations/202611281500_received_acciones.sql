-- A tenant's answers to a received document (docs/received.md, "Accepting or claiming"), one row
-- each: what was asked, the signed answer for the supplier, and its registration at the SII
-- through the provider (registro de aceptación o reclamo). They replace received_dtes.acciones.
create table received_acciones (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  received_dte_id uuid not null references received_dtes (id) on delete cascade,
  -- 1, 2, … per document, in the order they were asked.
  n integer not null,
  accion text not null,
  glosa text,
  recinto text,
  -- The signed RespuestaDTE (ResultadoDTE) or EnvioRecibos (Recibo) for the supplier; null only
  -- for answers recorded before this table existed.
  respuesta bytea,
  respuesta_tipo text,
  -- pending: to be registered (next_at); registered: the SII holds it (codigo 0, or 7 when it held
  -- it before); refused: the SII will not record it (its codigo and descripcion say why); failed:
  -- attempts exhausted, asked again by POSTing the same action.
  sii_state text not null,
  sii_codigo integer,
  sii_descripcion text,
  sii_registered_at timestamptz,
  sii_attempts integer not null default 0,
  sii_next_at timestamptz,
  sii_last_error text,
  -- A worker's claim on the attempt in progress (never two attempts of one action at once).
  sii_lease_until timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint received_acciones_order unique (received_dte_id, n)
);
create index received_acciones_due on received_acciones (sii_next_at) where sii_state = 'pending';
create index received_acciones_account on received_acciones (account_id, received_dte_id);

-- Answers recorded before: never registered, so pending now (the SII decides, e.g. past its window).
insert into received_acciones (id, account_id, tenant_id, received_dte_id, n, accion, glosa, sii_state, sii_next_at, created_at, updated_at)
select gen_random_uuid(), d.account_id, d.tenant_id, d.id, a.n::integer, a.value ->> 'accion', a.value ->> 'glosa', 'pending',
  (a.value ->> 'at')::timestamptz, (a.value ->> 'at')::timestamptz, (a.value ->> 'at')::timestamptz
from received_dtes d, jsonb_array_elements(d.acciones) with ordinality as a(value, n);

alter table received_dtes drop column acciones;
