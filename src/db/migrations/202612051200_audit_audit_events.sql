-- The audit log (issue 29; docs/audit.md): who changed what, when and from where. Written in the
-- same transaction as the change where there is one. Never a secret: the actor is a member's
-- e-mail or an API key's display prefix, and `details` holds only what the service chose to keep.
-- Keyed on the account of the current mode (a test-mode twin account keeps its own events).
create table audit_events (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  livemode boolean not null default true,
  actor_type text not null check (actor_type in ('member', 'api_key', 'system')),
  actor_id text,
  actor_label text not null,
  action text not null,
  target_type text not null,
  target_id text,
  ip text,
  user_agent text,
  details jsonb not null default '{}',
  created_at timestamptz not null
);
-- The list (newest first) and its filters, each within one account.
create index audit_events_account_created on audit_events (account_id, created_at desc, id desc);
create index audit_events_account_action on audit_events (account_id, action text_pattern_ops, created_at desc);
create index audit_events_account_actor on audit_events (account_id, actor_label, created_at desc);
-- The retention sweep (AUDIT_RETENTION_DAYS) deletes by age across accounts.
create index audit_events_created on audit_events (created_at);
