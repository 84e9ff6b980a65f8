import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import { REVOKED_CHANNEL } from './api-keys.cache.ts';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  key_hash: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** The key's mode (migration 202612050900_test_mode): its account_id is the scope of that mode. */
  livemode: boolean;
}

export const apiKeysStore = {
  async insert(
    tx: Sql,
    k: { id: string; accountId: string; livemode: boolean; name: string | null; keyHash: string; prefix: string; now: Date },
  ) {
    const r = await tx.query<ApiKeyRow>(
      `insert into api_keys (id, account_id, livemode, name, key_hash, prefix, created_at) values ($1, $2, $3, $4, $5, $6, $7) returning *`,
      [k.id, k.accountId, k.livemode, k.name, k.keyHash, k.prefix, k.now],
    );
    return r.rows[0]!;
  },
  /** Authentication lookup: by hash only, across accounts (the key itself names its account). */
  async findActiveByHash(tx: Sql, keyHash: string) {
    const r = await tx.query<ApiKeyRow>('select * from api_keys where key_hash = $1 and revoked_at is null', [keyHash]);
    return r.rows[0];
  },
  async findByHash(tx: Sql, keyHash: string) {
    const r = await tx.query<ApiKeyRow>('select * from api_keys where key_hash = $1', [keyHash]);
    return r.rows[0];
  },
  async list(tx: Sql, accountId: string, opts: { limit: number; cursor?: Cursor | undefined; includeRevoked?: boolean }) {
    const c = cursorCondition(opts.cursor, 3);
    const r = await tx.query<ApiKeyRow>(
      `select * from api_keys where account_id = $1 and ${c.sql} ${opts.includeRevoked ? '' : 'and revoked_at is null'}
       order by created_at desc, id desc limit $2`,
      [accountId, opts.limit + 1, ...c.params],
    );
    return r.rows;
  },
  async revoke(tx: Sql, accountId: string, id: string, now: Date) {
    const r = await tx.query<ApiKeyRow>(
      `update api_keys set revoked_at = coalesce(revoked_at, $3) where account_id = $1 and id::text = $2 returning *`,
      [accountId, id, now],
    );
    return r.rows[0];
  },
  /**
   * Tells every process listening (api-keys.cache.ts) that the key is revoked; inside the
   * revoking transaction, so the notification goes out exactly when the revocation commits.
   */
  async notifyRevoked(tx: Sql, id: string) {
    await tx.query('select pg_notify($1, $2)', [REVOKED_CHANNEL, id]);
  },
  /** last_used_at is advisory; it is written at most once a minute per key to keep reads cheap. */
  async touch(tx: Sql, id: string, now: Date) {
    await tx.query(
      `update api_keys set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  },
};
