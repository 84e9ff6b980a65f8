-- The separate secrets store (its own database: a PGlite directory, or a PostgreSQL database or
-- schema of its own). Values are AES-256-GCM envelopes under the secrets keyring; `aad` is the
-- owner binding the caller must present to read a value back (not secret, kept for key rotation).
create table secrets (
  ref text primary key,
  ciphertext bytea not null,
  aad text not null,
  key_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index secrets_key_id on secrets (key_id);
create index secrets_created on secrets (created_at);
