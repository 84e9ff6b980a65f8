import type { Db, Sql } from '../../db/types.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage } from '../../lib/pagination.ts';
import { newId, randomToken, sha256Hex, UUID_RE } from '../../lib/tokens.ts';
import { apiKeysStore, type ApiKeyRow } from './api-keys.store.ts';
import { createKeyCache, type KeyCache } from './api-keys.cache.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';

/**
 * API keys (docs/design.md §3): `sk_live_` (or, in test mode, `sk_test_`) + 32 random bytes
 * (base64url). Only the SHA-256 of the full key is stored, with a short display prefix; the key
 * itself appears once, in the create response.
 */
export const API_KEY_PREFIX = 'sk_live_';
export const TEST_API_KEY_PREFIX = 'sk_test_';
export const API_KEY_RE = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/;

/** Where a key is made: the scope of one account in one mode (src/modules/accounts/modes.ts). */
export interface KeyScope {
  id: string;
  livemode: boolean;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  livemode: boolean;
}

export const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  livemode: r.livemode,
  name: r.name,
  prefix: r.prefix,
  createdAt: r.created_at.toISOString(),
  lastUsedAt: r.last_used_at?.toISOString() ?? null,
  revokedAt: r.revoked_at?.toISOString() ?? null,
});

/** last_used_at is advisory: each process writes it at most once a minute per key. */
const TOUCH_EVERY_MS = 60_000;

export function createApiKeysService(deps: { db: Db; clock: Clock; cache?: KeyCache; audit?: AuditRecorder }) {
  const { db, clock } = deps;
  const cache = deps.cache ?? createKeyCache(db);
  const touchedAt = new Map<string, number>();
  const touch = (apiKeyId: string) => {
    const at = clock.now();
    const last = touchedAt.get(apiKeyId);
    if (last !== undefined && at.getTime() - last < TOUCH_EVERY_MS) return;
    touchedAt.delete(apiKeyId); // re-inserted last: the map's oldest entries are the least recent
    touchedAt.set(apiKeyId, at.getTime());
    if (touchedAt.size > 10_000) touchedAt.delete(touchedAt.keys().next().value!);
    void apiKeysStore.touch(db, apiKeyId, at).catch(() => {});
  };
  /** `scope` is a KeyScope, or a live account's id. */
  const createIn = async (tx: Sql, given: KeyScope | string, input: { name?: string | undefined }, actor?: AuditActor) => {
    const scope = typeof given === 'string' ? { id: given, livemode: true } : given;
    const prefix = scope.livemode ? API_KEY_PREFIX : TEST_API_KEY_PREFIX;
    const key = randomToken(prefix);
    const row = await apiKeysStore.insert(tx, {
      id: newId(),
      accountId: scope.id,
      livemode: scope.livemode,
      name: input.name?.trim() || null,
      keyHash: sha256Hex(key),
      prefix: key.slice(0, prefix.length + 6),
      now: clock.now(),
    });
    await deps.audit?.recordIn(tx, actor, {
      accountId: scope.id,
      action: 'api_key.created',
      target: { type: 'api_key', id: row.id },
      details: { name: row.name, prefix: row.prefix },
    });
    return { ...toApiKey(row), key };
  };
  return {
    createIn,
    create: (scope: KeyScope | string, input: { name?: string | undefined }, actor?: AuditActor) =>
      db.transaction((tx) => createIn(tx, scope, input, actor)),
    async list(accountId: string, q: { limit: number; iterator?: string | undefined }) {
      const cursor = decodeIterator(q.iterator);
      const rows = await apiKeysStore.list(db, accountId, { limit: q.limit, cursor });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toApiKey);
    },
    async revoke(accountId: string, id: string, actor?: AuditActor) {
      if (!UUID_RE.test(id)) throw errors.notFound('api_key', id);
      // Takes effect at once in every process (api-keys.cache.ts): the notification commits with the
      // revocation, and the answer waits until every process listening has dropped the key.
      const revocation = await cache.beginRevocation(id);
      try {
        const row = await db.transaction(async (tx) => {
          const r = await apiKeysStore.revoke(tx, accountId, id, clock.now());
          if (r && db.kind === 'postgres') await apiKeysStore.notifyRevoked(tx, r.id);
          if (r)
            await deps.audit?.recordIn(tx, actor, {
              accountId,
              action: 'api_key.revoked',
              target: { type: 'api_key', id: r.id },
              details: { name: r.name, prefix: r.prefix },
            });
          return r;
        });
        if (!row) throw errors.notFound('api_key', id);
        await revocation.committed();
        return toApiKey(row);
      } finally {
        revocation.cancel();
      }
    },
    /**
     * Resolves a presented secret to its account. Throws 401s with distinct codes: the caller
     * learns whether to fix the header format, use another key, or create a new one.
     */
    async authenticate(secret: string): Promise<{ accountId: string; apiKeyId: string; livemode: boolean; prefix: string }> {
      if (!API_KEY_RE.test(secret))
        throw errors.unauthorized(
          'malformed_api_key',
          'The API key is malformed. Keys look like sk_live_ (or sk_test_ in test mode) followed by 43 characters.',
        );
      const hash = sha256Hex(secret);
      const cached = cache.get(hash);
      if (cached) {
        touch(cached.apiKeyId);
        return cached;
      }
      const epoch = cache.epoch();
      const row = await apiKeysStore.findByHash(db, hash);
      if (!row) throw errors.unauthorized('invalid_api_key', 'The API key is not valid. Create one in Settings → API Keys.');
      if (row.revoked_at) throw errors.unauthorized('revoked_api_key', 'The API key has been revoked. Use or create another key.');
      const key = { accountId: row.account_id, apiKeyId: row.id, livemode: row.livemode, prefix: row.prefix };
      cache.set(hash, key, epoch);
      touch(row.id);
      return key;
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
