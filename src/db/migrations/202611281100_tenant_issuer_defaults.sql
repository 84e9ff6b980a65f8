-- The tenant's issuer data written on every document unless the document overrides it
-- (docs/decisions.md §11): {telefono, correo, sucursal, codigoSucursal, vendedor, unidadSii}, absent keys unset.
alter table tenants add column emisor jsonb not null default '{}'::jsonb;
