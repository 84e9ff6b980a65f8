-- The path a tenant's documents take to the SII (docs/decisions.md §14; docs/credentials.md "A provider
-- per tenant"): 'simpleapi' (the default, the contract's flow through the billing provider, which
-- needs the tenant's API key) or 'sii' (the SII's own services, which need only the tenant's
-- certificate). Every existing tenant keeps the path it had. Issued documents, envíos and folios do
-- not depend on it: a tenant may change provider at any time and keeps issuing with its CAFs.
alter table tenants add column provider text not null default 'simpleapi';
alter table tenants add constraint tenants_provider_check check (provider in ('simpleapi', 'sii'));
