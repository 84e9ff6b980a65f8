-- Every change to a tenant row notifies, committed with it, so each process's tenant cache
-- (src/modules/tenants/tenants.cache.ts) drops the row: whichever module wrote it, a cascade from
-- a deleted account, or a hand edit in psql.
create or replace function dte_tenant_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('dte_tenant_changed', coalesce(new.id, old.id)::text);
  return null;
end
$$;

create trigger tenants_changed_notify after insert or update or delete on tenants
  for each row execute function dte_tenant_changed();
