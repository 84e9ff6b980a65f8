-- A certification book sent to the SII (docs/certification.md, "Books"): one row per set, kind and
-- FolioNotificacion, so the same book asked again is not uploaded twice (a new FolioNotificacion is
-- a new upload). `status` is the SII's review as last read (pending, accepted, rejected), `estado`
-- its code (LOK, LRH…), `glosa` its words.
create table certification_book_sends (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  set_id uuid not null references certification_sets (id) on delete cascade,
  kind text not null,
  folio_notificacion bigint not null,
  track_id text,
  status text not null,
  estado text,
  glosa text,
  sent_at timestamptz not null,
  updated_at timestamptz not null,
  unique (set_id, kind, folio_notificacion)
);
create index certification_book_sends_account on certification_book_sends (account_id, set_id, kind);
