import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../db/types.ts';
import type { Clock } from '../lib/clock.ts';
import type { Envelope } from './envelope.ts';

/**
 * The separate secrets store: small values (the .pfx password, the billing-provider API key) kept
 * in a database of their own under a keyring of their own, so neither a copy of the main database
 * nor its key alone reveals them.
 *
 * Invariants:
 * - values are immutable: a ref is written once (a change writes a new ref, then the caller
 *   points to it and deletes the old one), so a crash between the two databases leaves at worst an
 *   unreferenced value, never a live pointer to a half-written one;
 * - each value is bound to `ref` and to the caller's `aad` (owner): reading it under another ref or
 *   another owner fails closed;
 * - nothing here logs or returns plaintext except `get`.
 */
export interface SecretInfo {
  ref: string;
  keyId: string;
  createdAt: Date;
}

export interface SecretStore {
  put(ref: string, value: string | Buffer, aad: string): Promise<void>;
  /** The value, or undefined when there is no such ref. Throws DecryptionError on a wrong aad. */
  get(ref: string, aad: string): Promise<Buffer | undefined>;
  getString(ref: string, aad: string): Promise<string | undefined>;
  delete(ref: string): Promise<boolean>;
  /** Refs in ref order, optionally under a prefix and older than a time (for orphan sweeps). */
  list(opts?: { prefix?: string; olderThan?: Date; after?: string; limit?: number }): Promise<SecretInfo[]>;
  /** How many values each key-encryption key protects. */
  keyUsage(): Promise<Record<string, number>>;
  /**
   * Re-encrypts every value not under the current key (key rotation). Values that do not decrypt
   * (tampered) are left as they are and reported, so their key is never pruned.
   */
  rewrap(): Promise<{ rewrapped: number; failed: string[] }>;
}

export const SECRETS_MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

const REF_RE = /^[a-z0-9][a-z0-9:/._-]{0,199}$/;

// The ref is part of the associated data, so a value copied to another ref does not decrypt.
const bound = (ref: string, aad: string) => `secret:${ref}\n${aad}`;

export class SecretRefError extends Error {
  constructor(ref: string, problem: string) {
    super(`secret ref '${ref}': ${problem}`);
    this.name = 'SecretRefError';
  }
}

export function createDbSecretStore(deps: { db: Db; envelope: Envelope; clock: Clock }): SecretStore {
  const { db, envelope, clock } = deps;
  const check = (ref: string) => {
    if (!REF_RE.test(ref)) throw new SecretRefError(ref, 'must be 1-200 characters of a-z 0-9 : / . _ -');
  };
  const store: SecretStore = {
    async put(ref, value, aad) {
      check(ref);
      const ciphertext = envelope.encrypt(value, bound(ref, aad));
      const now = clock.now();
      const r = await db.query(
        `insert into secrets (ref, ciphertext, aad, key_id, created_at, updated_at) values ($1, $2, $3, $4, $5, $5)
         on conflict (ref) do nothing`,
        [ref, ciphertext, aad, envelope.keyIdOf(ciphertext), now],
      );
      if (r.rowCount !== 1) throw new SecretRefError(ref, 'already exists (secrets are written once)');
    },
    async get(ref, aad) {
      check(ref);
      const r = await db.query<{ ciphertext: Buffer }>('select ciphertext from secrets where ref = $1', [ref]);
      const row = r.rows[0];
      return row ? envelope.decrypt(row.ciphertext, bound(ref, aad)) : undefined;
    },
    async getString(ref, aad) {
      return (await store.get(ref, aad))?.toString('utf8');
    },
    async delete(ref) {
      check(ref);
      return (await db.query('delete from secrets where ref = $1', [ref])).rowCount > 0;
    },
    async list(opts = {}) {
      const r = await db.query<{ ref: string; key_id: string; created_at: Date }>(
        `select ref, key_id, created_at from secrets
         where ($1::text is null or starts_with(ref, $1)) and ($2::timestamptz is null or created_at < $2)
           and ($3::text is null or ref > $3)
         order by ref limit $4`,
        [opts.prefix ?? null, opts.olderThan ?? null, opts.after ?? null, opts.limit ?? 1000],
      );
      return r.rows.map((x) => ({ ref: x.ref, keyId: x.key_id, createdAt: x.created_at }));
    },
    async keyUsage() {
      const r = await db.query<{ key_id: string; n: number }>('select key_id, count(*)::int as n from secrets group by key_id');
      return Object.fromEntries(r.rows.map((x) => [x.key_id, Number(x.n)]));
    },
    async rewrap() {
      let rewrapped = 0;
      const failed: string[] = [];
      let after = '';
      for (;;) {
        // Small batches in ref order, each its own transaction; the old key id in the WHERE makes
        // a concurrent rotation or delete harmless.
        const batch = await db.transaction(async (tx) => {
          const r = await tx.query<{ ref: string; ciphertext: Buffer; aad: string; key_id: string }>(
            'select ref, ciphertext, aad, key_id from secrets where key_id <> $1 and ref > $2 order by ref limit 100 for update',
            [envelope.currentKeyId, after],
          );
          for (const row of r.rows) {
            let next: Buffer;
            try {
              next = envelope.rewrap(row.ciphertext, bound(row.ref, row.aad));
            } catch {
              failed.push(row.ref);
              continue;
            }
            await tx.query('update secrets set ciphertext = $2, key_id = $3, updated_at = $4 where ref = $1 and key_id = $5', [
              row.ref,
              next,
              envelope.keyIdOf(next),
              clock.now(),
              row.key_id,
            ]);
            rewrapped++;
          }
          return r.rows;
        });
        if (batch.length < 100) return { rewrapped, failed };
        after = batch[batch.length - 1]!.ref;
      }
    },
  };
  return store;
}
