-- The full document model (docs/decisions.md §11, docs/dte.md): exports carry amounts with up to 4
-- decimals in their currency (DTE_v10.xsd Exportaciones/Totales), and a 43 may total below zero,
-- so the amount columns become numeric; every field beyond receptor, lines and references, and
-- every computed total beyond neto/exento/IVA/total, is kept in `documento` and echoed by the API.
alter table dtes
  alter column monto_neto type numeric(22, 4),
  alter column monto_exento type numeric(22, 4),
  alter column iva type numeric(22, 4),
  alter column monto_total type numeric(22, 4);
alter table dtes add column documento jsonb not null default '{}'::jsonb;
