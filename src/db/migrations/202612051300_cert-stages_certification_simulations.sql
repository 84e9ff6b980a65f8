-- A certification simulation run (docs/certification.md, "The simulation"): documents of the
-- tenant's own operation, without the test set's references, made and sent as any document. One
-- row per run, and one per document in the run's order, written in the very transaction that
-- stores its DTE (the dte module's bindResult), so a run lists exactly the documents it made.
create table certification_simulations (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  requested integer not null,
  created_at timestamptz not null
);
create index certification_simulations_account on certification_simulations (account_id, tenant_id, created_at desc, id desc);
create table certification_simulation_documents (
  simulation_id uuid not null references certification_simulations (id) on delete cascade,
  position integer not null,
  account_id uuid not null references accounts (id) on delete cascade,
  dte_id uuid not null references dtes (id) on delete cascade,
  primary key (simulation_id, position)
);
