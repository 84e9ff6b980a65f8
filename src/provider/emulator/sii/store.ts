import type { Sql } from '../../../db/types.ts';

/** The SII face's seeds and tokens (migrations/emulator_202612010000_sii_tokens.sql). */
export type SiiTokenKind = 'soap' | 'rest';

export interface SiiTokenRow {
  token: string;
  kind: SiiTokenKind;
  rut: string | null;
  holder_name: string;
  issued_at: Date;
  expires_at: Date;
}

export interface SiiSeedRow {
  seed: string;
  kind: SiiTokenKind;
  issued_at: Date;
  used_at: Date | null;
}

export const siiStore = {
  async insertSeed(db: Sql, seed: string, kind: SiiTokenKind, now: Date): Promise<void> {
    await db.query('insert into emu_sii_seeds (seed, kind, issued_at) values ($1, $2, $3)', [seed, kind, now]);
  },
  /** The seed, locked so that one seed buys one token. */
  async lockSeed(db: Sql, seed: string): Promise<SiiSeedRow | undefined> {
    const r = await db.query<SiiSeedRow>('select * from emu_sii_seeds where seed = $1 for update', [seed]);
    const row = r.rows[0];
    return row ? { ...row, issued_at: new Date(row.issued_at), used_at: row.used_at ? new Date(row.used_at) : null } : undefined;
  },
  async useSeed(db: Sql, seed: string, now: Date): Promise<void> {
    await db.query('update emu_sii_seeds set used_at = $2 where seed = $1', [seed, now]);
  },
  async insertToken(db: Sql, t: SiiTokenRow): Promise<void> {
    await db.query('insert into emu_sii_tokens (token, kind, rut, holder_name, issued_at, expires_at) values ($1, $2, $3, $4, $5, $6)', [
      t.token,
      t.kind,
      t.rut,
      t.holder_name,
      t.issued_at,
      t.expires_at,
    ]);
  },
  async getToken(db: Sql, token: string): Promise<SiiTokenRow | undefined> {
    const r = await db.query<SiiTokenRow>('select * from emu_sii_tokens where token = $1', [token]);
    const row = r.rows[0];
    return row ? { ...row, issued_at: new Date(row.issued_at), expires_at: new Date(row.expires_at) } : undefined;
  },
  async renewToken(db: Sql, token: string, expiresAt: Date): Promise<void> {
    await db.query('update emu_sii_tokens set expires_at = $2 where token = $1', [token, expiresAt]);
  },
};
