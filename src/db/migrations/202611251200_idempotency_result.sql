-- An idempotency key is bound to the result of its request in the same transaction as the change
-- it guards (src/http/plugins/idempotency.ts): if the response is never stored (a crash, a failed
-- write after commit), a retry finds the result here and answers with it instead of repeating the
-- change (a second DTE, a second folio).
alter table idempotency_keys add column result_type text;
alter table idempotency_keys add column result_id uuid;
