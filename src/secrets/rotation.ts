import type { Db } from '../db/types.ts';
import type { Envelope } from './envelope.ts';
import type { EncryptedColumn } from './encrypted-columns.ts';
import type { SecretStore } from './secret-store.ts';

/**
 * Key rotation: re-encrypts every ciphertext that is not under its store's current key. The
 * procedure (docs/secrets.md): put the new key first in the keyring, run this, check with
 * `keyUsage` that nothing uses the old key, then drop the old key.
 *
 * The key id sits in the envelope header (byte 1 = length, bytes 2.. = id), so SQL can find the
 * rows that still need work without decrypting anything.
 */
const ident = (s: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`unexpected identifier ${s}`);
  return s;
};

const keyIdSql = (col: string) => `convert_from(substring(${col} from 3 for get_byte(${col}, 1)), 'SQL_ASCII')`;

/** Re-wraps one column; rows that do not decrypt (tampered) are skipped and reported by key. */
export async function rewrapColumn(db: Db, envelope: Envelope, c: EncryptedColumn): Promise<{ rewrapped: number; failed: string[] }> {
  const table = ident(c.table);
  const col = ident(c.column);
  const key = ident(c.key);
  const cols = [key, col, ...c.needs.map(ident)].join(', ');
  let rewrapped = 0;
  const failed: string[] = [];
  let after = '';
  for (;;) {
    const rows = await db.transaction(async (tx) => {
      const r = await tx.query<Record<string, unknown>>(
        `select ${cols} from ${table} where ${col} is not null and ${keyIdSql(col)} <> $1 and ${key}::text > $2
         order by ${key}::text limit 100 for update`,
        [envelope.currentKeyId, after],
      );
      for (const row of r.rows) {
        let next: Buffer;
        try {
          next = envelope.rewrap(row[col] as Buffer, c.aad(row));
        } catch {
          failed.push(String(row[key]));
          continue;
        }
        await tx.query(`update ${table} set ${col} = $2 where ${key} = $1`, [row[key], next]);
        rewrapped++;
      }
      return r.rows;
    });
    if (rows.length < 100) return { rewrapped, failed };
    after = String(rows[rows.length - 1]![key]);
  }
}

export async function columnKeyUsage(db: Db, c: EncryptedColumn): Promise<Record<string, number>> {
  const col = ident(c.column);
  const r = await db.query<{ key_id: string; n: number }>(
    `select ${keyIdSql(col)} as key_id, count(*)::int as n from ${ident(c.table)} where ${col} is not null group by 1`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.key_id, Number(x.n)]));
}

export interface RotationReport {
  data: { currentKeyId: string; rewrapped: Record<string, number>; failed: Record<string, string[]> };
  secrets: { currentKeyId: string; rewrapped: number; failed: string[] };
}

export async function rewrapAll(deps: {
  db: Db;
  dataEnvelope: Envelope;
  secretStore: SecretStore;
  secretsEnvelope: Envelope;
  columns: EncryptedColumn[];
  rewrapSecrets: boolean;
}): Promise<RotationReport> {
  const rewrapped: Record<string, number> = {};
  const failed: Record<string, string[]> = {};
  for (const c of deps.columns) {
    const r = await rewrapColumn(deps.db, deps.dataEnvelope, c);
    rewrapped[`${c.table}.${c.column}`] = r.rewrapped;
    if (r.failed.length) failed[`${c.table}.${c.column}`] = r.failed;
  }
  const s = deps.rewrapSecrets ? await deps.secretStore.rewrap() : { rewrapped: 0, failed: [] };
  return {
    data: { currentKeyId: deps.dataEnvelope.currentKeyId, rewrapped, failed },
    secrets: { currentKeyId: deps.secretsEnvelope.currentKeyId, rewrapped: s.rewrapped, failed: s.failed },
  };
}

export async function keyUsage(deps: { db: Db; secretStore: SecretStore; columns: EncryptedColumn[] }) {
  const data: Record<string, number> = {};
  for (const c of deps.columns) for (const [k, n] of Object.entries(await columnKeyUsage(deps.db, c))) data[k] = (data[k] ?? 0) + n;
  return { data, secrets: await deps.secretStore.keyUsage() };
}
