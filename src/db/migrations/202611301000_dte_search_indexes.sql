-- The dashboard's document search (docs/dashboard.md "Documents"): every filter of a tenant's list
-- has an index that starts with tenant_id and keeps the list's order (newest first), so a search
-- reads only the matching rows. The plain list keeps dtes_tenant_list; folio with its type is the
-- unique dtes_folio_once.
create index dtes_tenant_folio on dtes (tenant_id, folio);
create index dtes_tenant_receptor on dtes (tenant_id, (receptor->>'rut'), created_at desc, id desc);
create index dtes_tenant_fecha on dtes (tenant_id, fecha_emision, created_at desc, id desc);
create index dtes_tenant_status on dtes (tenant_id, status, created_at desc, id desc);
