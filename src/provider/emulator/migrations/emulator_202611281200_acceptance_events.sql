-- The SII's registro de aceptación o reclamo (docs/sources.md [RR]):
-- the events recorded on a received document, at most one of each kind (a repeat is "Evento
-- registrado previamente"). rut_responsable is the certificate holder who registered it.
create table emu_dte_events (
  seq bigserial not null,
  rut_emisor text not null,
  tipo_dte integer not null,
  folio bigint not null,
  accion text not null,
  rut_responsable text,
  registered_at timestamptz not null,
  primary key (rut_emisor, tipo_dte, folio, accion)
);
