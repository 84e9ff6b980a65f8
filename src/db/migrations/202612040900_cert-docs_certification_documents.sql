-- The document made for each case of a test set (docs/certification.md, "Making the documents").
-- A row is written in the very transaction that stores its DTE (the dte module's bindResult), so a
-- case has its document or has none: a call after a crash midway finishes the rest and never
-- issues a case twice. `documents_lease_until` on the set keeps two calls from making the same
-- set's documents at once; a lease left by a crashed process lapses.
create table certification_documents (
  set_id uuid not null references certification_sets (id) on delete cascade,
  case_id text not null,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  dte_id uuid not null references dtes (id) on delete cascade,
  created_at timestamptz not null,
  primary key (set_id, case_id)
);
create index certification_documents_account on certification_documents (account_id, set_id);
alter table certification_sets add column documents_lease_until timestamptz;
