-- The emulated SII's own authentication (its SII face, sii/): seeds handed out by CrSeed and
-- boleta.electronica.semilla, and the tokens bought with them. A seed lives two minutes and buys
-- one token; a token belongs to the certificate holder who signed the seed.
create table emu_sii_seeds (
  seed text primary key,
  kind text not null,
  issued_at timestamptz not null,
  used_at timestamptz
);

create table emu_sii_tokens (
  token text primary key,
  kind text not null,
  rut text,
  holder_name text not null,
  issued_at timestamptz not null,
  expires_at timestamptz not null
);

-- DTEUpload answers a file it already holds with STATUS 99 and the earlier track id, counting
-- the sends (sii/upload.ts).
alter table emu_envios add column sends integer not null default 1;
create index emu_envios_sha256 on emu_envios (envelope_sha256);
