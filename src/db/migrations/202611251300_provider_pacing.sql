-- Pacing of billing-provider calls per provider key and host (src/provider/simpleapi/pacing.ts):
-- the start times (epoch ms) of the last calls, and a block after a 429. The key is stored only
-- as a SHA-256 digest. Shared by every process of one database.
create table provider_pacing (
  key_hash text not null,
  host text not null,
  calls bigint[] not null default '{}',
  blocked_until bigint,
  primary key (key_hash, host)
);
