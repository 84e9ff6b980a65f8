-- The emulated SII's own records (in its own database when standalone, or in emu_* tables of the
-- service's database when it runs in-process). Nothing here is the service's data.

-- Last folio authorized per issuer and type: CAF ranges never overlap, as at the SII.
create table emu_folio_counters (
  rut_emisor text not null,
  tipo_dte integer not null,
  last_folio bigint not null,
  primary key (rut_emisor, tipo_dte)
);

-- Every CAF issued, to know that an issuer owns the CAF it stamps with.
create table emu_cafs (
  id bigserial primary key,
  rut_emisor text not null,
  tipo_dte integer not null,
  desde bigint not null,
  hasta bigint not null,
  fecha_autorizacion date not null,
  modulus text not null,
  issued_at timestamptz not null
);
create index emu_cafs_lookup on emu_cafs (rut_emisor, tipo_dte, desde);

create table emu_annulled (
  id bigserial primary key,
  rut_emisor text not null,
  tipo_dte integer not null,
  desde bigint not null,
  hasta bigint not null,
  annulled_at timestamptz not null
);
create index emu_annulled_lookup on emu_annulled (rut_emisor, tipo_dte);

-- Received envelopes with their (already computed) outcome, revealed after ready_at.
create table emu_envios (
  track_id bigserial primary key,
  rut_emisor text,
  rut_envia text,
  tipo text not null,
  received_at timestamptz not null,
  ready_at timestamptz not null,
  estado text not null,
  glosa text not null,
  estadistica jsonb not null default '[]',
  detalle jsonb not null default '[]',
  envelope_sha256 text not null
);
alter sequence emu_envios_track_id_seq restart with 4000001;

-- Documents the SII has received (accepted, with or without reparos): a folio is received once.
create table emu_documents (
  rut_emisor text not null,
  tipo_dte integer not null,
  folio bigint not null,
  digest text not null,
  track_id bigint not null,
  estado text not null,
  glosa text not null,
  fecha_emision text,
  monto_total bigint,
  rut_receptor text,
  received_at timestamptz not null,
  primary key (rut_emisor, tipo_dte, folio)
);
