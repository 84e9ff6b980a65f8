-- A stored response can hold a secret shown once (an sk_live_ key, an act_ token, a whsec_ secret):
-- it is kept encrypted under the data keyring (src/http/plugins/idempotency.ts), never in plain
-- text. Responses stored in plain text by earlier versions are dropped: they may hold secrets,
-- and SQL cannot encrypt them. A retry of such a request within its 24 h runs again.
alter table idempotency_keys add column id uuid not null default gen_random_uuid();
alter table idempotency_keys add constraint idempotency_keys_id unique (id);
alter table idempotency_keys add column response_ciphertext bytea;
delete from idempotency_keys where status_code is not null;
alter table idempotency_keys drop column response_headers;
alter table idempotency_keys drop column response_body;
