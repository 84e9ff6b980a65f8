-- At most one answer of each kind that counts (not refused by the SII) per received document: the
-- request that records one holds the document's lock and reads what is there first
-- (received.acceptance.ts); this index is the database's own guarantee of the same.
create unique index received_acciones_once on received_acciones (received_dte_id, accion) where sii_state <> 'refused';
