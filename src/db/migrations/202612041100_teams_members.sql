-- Teams (issue 29; docs/dashboard.md "Members and roles"). An account has members, each a
-- dashboard login with a role. The e-mail of a login is unique across the installation (one
-- login belongs to one account). The password is kept only as its scrypt hash, here and nowhere
-- else: the account's own password_hash column is emptied below and no longer read.
create table account_members (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  email text not null,
  name text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'operator', 'read_only')),
  password_hash text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index account_members_email_key on account_members (lower(email));
create index account_members_account on account_members (account_id, created_at, id);

-- Every existing account's holder becomes its owner, with the password it had.
insert into account_members (id, account_id, email, name, role, password_hash, created_at, updated_at)
select gen_random_uuid(), a.id, a.email, a.name, 'owner', a.password_hash, a.created_at, a.updated_at from accounts a;
update accounts set password_hash = null;

-- A logged-in session belongs to a member; the sessions open during the upgrade stay logged in
-- as their account's owner.
alter table dashboard_sessions add column member_id uuid references account_members (id) on delete cascade;
update dashboard_sessions s set member_id = m.id from account_members m where m.account_id = s.account_id and s.account_id is not null;
create index dashboard_sessions_member on dashboard_sessions (member_id);

-- Invitations: a single-use link that expires, the token kept only as its SHA-256. One pending
-- invitation per address and account: inviting again replaces it (and voids the old link).
create table member_invitations (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'operator', 'read_only')),
  token_hash text not null unique,
  invited_by uuid references account_members (id) on delete set null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create unique index member_invitations_account_email on member_invitations (account_id, lower(email));
create index member_invitations_expires on member_invitations (expires_at);
