-- The exchange module becomes a generic outbound-mail outbox (docs/exchange.md, docs/design.md §11):
-- a delivery names what it is about as a subject (a kind the owning module chooses and that
-- module's id) instead of one column per kind of document. The dte module's subjects are `dte`
-- (the document sent); the received module's are `received_envio` (the upload whose
-- RespuestaEnvioDTE it carries) and `received_dte` (the received document whose answer n it
-- carries). What the owner needs beyond the id (the answer's tipo and n) is `subject_detail`,
-- opaque to the outbox.

alter table exchange_deliveries add column subject_kind text;
alter table exchange_deliveries add column subject_id uuid;
alter table exchange_deliveries add column subject_detail jsonb;
-- At most one delivery per (account, once_key): the owner's key for a delivery that must be
-- written once whatever retries the transaction that writes it (the dte module's automatic one).
alter table exchange_deliveries add column once_key text;

-- The rows of the old shape, carried over.
update exchange_deliveries set subject_kind = 'dte', subject_id = dte_id,
    once_key = case when trigger = 'accepted' then 'dte:' || dte_id::text || ':accepted' end
  where kind = 'dte';
update exchange_deliveries set subject_kind = 'received_envio', subject_id = received_envio_id,
    subject_detail = jsonb_build_object('tipo', respuesta_tipo)
  where kind = 'respuesta' and received_envio_id is not null;
update exchange_deliveries set subject_kind = 'received_dte', subject_id = received_dte_id,
    subject_detail = jsonb_build_object('tipo', respuesta_tipo, 'n', accion_n)
  where kind = 'respuesta' and received_envio_id is null;

alter table exchange_deliveries alter column subject_kind set not null;
alter table exchange_deliveries alter column subject_id set not null;

-- The subject's foreign keys went with its columns: a delivery outlives nothing it names, as
-- documents and received documents are deleted only with their tenant (tenant_id cascades).
drop index exchange_deliveries_once;
drop index exchange_deliveries_dte;
drop index exchange_deliveries_envio;
drop index exchange_deliveries_received;
alter table exchange_deliveries drop constraint exchange_deliveries_subject;
alter table exchange_deliveries drop column dte_id;
alter table exchange_deliveries drop column received_envio_id;
alter table exchange_deliveries drop column received_dte_id;
alter table exchange_deliveries drop column accion_n;
alter table exchange_deliveries drop column respuesta_tipo;
alter table exchange_deliveries drop column kind;

create index exchange_deliveries_subject on exchange_deliveries (account_id, subject_kind, subject_id, created_at, id);
create unique index exchange_deliveries_once on exchange_deliveries (account_id, once_key) where once_key is not null;
