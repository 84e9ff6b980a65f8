-- Voided folios (a create that never finished) are annulled at the SII, so its records explain
-- every gap. `annul_next_at` doubles as the claim: a worker sets it ahead (a lease) before calling
-- the provider, so two workers never annul the same folios at once, and a crash retries later.
alter table folio_allocations add column annulled_at timestamptz;
alter table folio_allocations add column annul_attempts integer not null default 0;
alter table folio_allocations add column annul_error text;
alter table folio_allocations add column annul_next_at timestamptz;
-- The SII environment a CAF was granted in: an annulment must go to that environment even if the
-- tenant has switched since (null for ranges granted before this column: never annulled).
alter table folio_ranges add column ambiente text;
create index folio_allocations_to_annul on folio_allocations (tenant_id, tipo_dte, folio) where status = 'void' and annulled_at is null;
