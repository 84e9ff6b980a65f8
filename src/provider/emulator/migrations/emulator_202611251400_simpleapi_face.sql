-- SimpleAPI's face of the emulator (docs/emulator.md, "The SimpleAPI protocol").

-- Rate-limit windows per API key (hashed), host and rule period, AspNetCoreRateLimit style:
-- a fixed window starts at the first call after the previous one ended (rate-limit.ts). Shared by
-- every process using this database.
create table emu_rate_counters (
  key_hash text not null,
  host text not null,
  period_ms bigint not null,
  window_start_ms bigint not null,
  count integer not null,
  primary key (key_hash, host, period_ms)
);

-- Who annulled a range: the SII names them when the same range is annulled again.
alter table emu_annulled add column annulled_by text not null default '';

-- The SII's "DTE Repetido" key is (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep).
alter table emu_documents add column iva bigint;
