-- A second kind of exchange delivery (docs/exchange.md, docs/received.md "Sending the signed
-- answers"): the receptor's signed answers to a supplier — the RespuestaEnvioDTE of an upload
-- (RecepcionEnvio) and the ResultadoDTE / EnvioRecibos of an acceptance or claim — e-mailed to the
-- supplier's exchange address, with the same jobs, retries, transports and records as documents.

-- 'dte': an accepted document to its receptor (dte_id); 'respuesta': an answer to a supplier.
alter table exchange_deliveries add column kind text not null default 'dte';
alter table exchange_deliveries alter column dte_id drop not null;
-- The upload whose RespuestaEnvioDTE it carries, or the received document and answer n whose
-- ResultadoDTE / EnvioRecibos it carries (received_acciones.n).
alter table exchange_deliveries add column received_envio_id uuid references received_envios (id) on delete cascade;
alter table exchange_deliveries add column received_dte_id uuid references received_dtes (id) on delete cascade;
alter table exchange_deliveries add column accion_n integer;
-- RecepcionEnvio, ResultadoDTE or EnvioRecibos.
alter table exchange_deliveries add column respuesta_tipo text;
alter table exchange_deliveries add constraint exchange_deliveries_subject check (
  (kind = 'dte' and dte_id is not null)
  or (kind = 'respuesta' and dte_id is null and respuesta_tipo is not null
      and (received_envio_id is not null or (received_dte_id is not null and accion_n is not null))));
create index exchange_deliveries_envio on exchange_deliveries (account_id, received_envio_id, created_at, id)
  where received_envio_id is not null;
create index exchange_deliveries_received on exchange_deliveries (account_id, received_dte_id, created_at, id)
  where received_dte_id is not null;

-- The supplier's exchange address as its DTE carries it (Emisor/CorreoEmisor), kept at reception;
-- documents received before are read back from their stored XML (an address is ASCII whatever the
-- envelope's encoding).
alter table received_dtes add column correo_emisor text;
update received_dtes
  set correo_emisor = nullif(trim(substring(convert_from(xml, 'LATIN1') from '<CorreoEmisor>([^<]{1,254})</CorreoEmisor>')), '');
