-- The dashboard's forms that create something (a credit note, a folio request) carry a one-time
-- token; the result is bound to it in the creating transaction, so a form submitted twice (a
-- double click, a reload of the POST) creates once and the second submission is redirected to
-- the first one's result (docs/dashboard.md "Actions"). Only the token's SHA-256 is kept; rows
-- older than a day are removed as the account's new ones arrive.
create table dashboard_form_results (
  account_id uuid not null references accounts (id) on delete cascade,
  token_hash text not null,
  kind text not null,
  result_id uuid not null,
  created_at timestamptz not null,
  primary key (account_id, token_hash)
);
create index dashboard_form_results_created_at on dashboard_form_results (created_at);
