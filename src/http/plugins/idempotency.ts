import crypto from 'node:crypto';
import { Transform } from 'node:stream';
import type {
  FastifyInstance,
  FastifyRequest,
  onSendAsyncHookHandler,
  preParsingAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { Db, Sql } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { EncryptedColumn } from '../../secrets/encrypted-columns.ts';

/**
 * Idempotency-Key on every POST (docs/design.md §2), scoped to the account, kept 24 h.
 * - The raw body is hashed while it streams in (works for JSON and multipart alike).
 * - Before validation, the request takes the key: a fresh key inserts an in-flight row; a
 *   completed key with the same request hash replays the stored response; a different hash is
 *   `idempotency_key_reused`; an in-flight one is `idempotency_key_in_use`.
 * - On send, the response is stored (5xx responses release the key instead, so a retry can run).
 * An in-flight row whose lock expired (its process died) can be taken over.
 *
 * Stored responses are encrypted (AES-GCM under the data keyring, bound to the account and the
 * key), like Stripe's: a replay within 24 h returns the same body, a secret shown once included
 * (an `sk_live_` key, an `act_` token, a `whsec_` secret), but the database never holds it in
 * plain text (docs/secrets.md).
 *
 * Creates whose retry could repeat a change bind the key to their result in the creating
 * transaction (idempotencyBinder, and a replayer registered beside the route): DTE, tenant, folio request,
 * webhook endpoint, certificate. Not bound, on purpose: `POST /api/v1/api-keys` and
 * `…/activation-link` return a secret that exists only at creation, so a lost response cannot be
 * replayed; the retry runs again and the unseen key or link is harmless (a new link invalidates
 * the old one; an unseen key can be revoked). `…/dte/send`: a retry is refused by state
 * (`dte_already_sent`), never duplicated.
 */
const TTL_MS = 24 * 3600_000;
const LOCK_MS = 5 * 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { key: string; hasher?: crypto.Hash; acquired?: boolean } | null;
  }
  interface FastifyInstance {
    /**
     * Registers how to answer a retry whose first request committed a `type` result (bound with
     * idempotencyBinder) but whose response was lost. Routes register it next to the route.
     */
    replayIdempotent(type: string, replayer: Replayer): void;
  }
}

/** Answers a retry whose first request committed but whose response was never stored. */
export type Replayer = (accountId: string, id: string) => Promise<{ statusCode: number; body: unknown } | undefined>;

/**
 * For a route whose service changes state: a function the service calls inside its transaction
 * to bind the request's Idempotency-Key to what it created, so the key is bound either to that
 * result or to nothing (the transaction rolls both back). Undefined without an acquired key.
 */
export function idempotencyBinder(req: FastifyRequest, type: string): ((tx: Sql, id: string) => Promise<void>) | undefined {
  const idem = req.idempotency;
  const accountId = req.auth?.accountId;
  if (!idem?.acquired || !accountId) return undefined;
  return async (tx, id) => {
    await tx.query('update idempotency_keys set result_type = $3, result_id = $4 where account_id = $1 and key = $2', [
      accountId,
      idem.key,
      type,
      id,
    ]);
  };
}

interface Row {
  request_hash: string;
  status_code: number | null;
  result_type: string | null;
  result_id: string | null;
  response_ciphertext: Buffer | null;
  created_at: Date;
  locked_until: Date;
}

interface StoredResponse {
  headers: Record<string, string>;
  body: string;
}

/** The owner string a stored response is bound to (AEAD associated data). */
export const idempotencyAad = (accountId: string, key: string) => `idempotency/${accountId}/${key}`;

export const idempotencyEncryptedColumns: EncryptedColumn[] = [
  {
    table: 'idempotency_keys',
    column: 'response_ciphertext',
    key: 'id',
    needs: ['account_id', 'key'],
    aad: (r) => idempotencyAad(String(r.account_id), String(r.key)),
  },
];

export default fp(async function idempotencyPlugin(app: FastifyInstance, opts: { db: Db; clock: Clock; cipher: DataCipher }) {
  const { db, clock, cipher } = opts;
  const replayers = new Map<string, Replayer>();
  app.decorate('replayIdempotent', (type: string, replayer: Replayer) => void replayers.set(type, replayer));
  app.decorateRequest('idempotency', null);

  // Only POST routes take a key, so the hooks are attached to those routes alone (below): a read
  // runs none of them (docs/performance.md "Where a cached read's CPU went").
  const takeBody: preParsingAsyncHookHandler = async (req, _reply, payload) => {
    const raw = req.headers['idempotency-key'];
    if (req.method !== 'POST' || raw === undefined || !req.auth) return payload;
    const key = Array.isArray(raw) ? raw[0]! : raw;
    const hasher = crypto.createHash('sha256').update(`${req.method} ${req.url}\n`);
    req.idempotency = { key, hasher };
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hasher.update(chunk);
        cb(null, chunk);
      },
    });
    (tap as unknown as { receivedEncodedLength: number }).receivedEncodedLength = 0;
    tap.on('data', (c: Buffer) => {
      (tap as unknown as { receivedEncodedLength: number }).receivedEncodedLength += c.length;
    });
    return payload.pipe(tap);
  };

  const acquire: preValidationAsyncHookHandler = async (req, reply) => {
    const idem = req.idempotency;
    if (!idem || !req.auth) return;
    if (idem.key.length < 1 || idem.key.length > 255 || !/^[\x21-\x7e]+$/.test(idem.key)) {
      req.idempotency = null;
      throw errors.invalid('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        param: 'Idempotency-Key',
      });
    }
    const hash = idem.hasher!.digest('hex');
    const accountId = req.auth.accountId;
    const now = clock.now();
    const tryInsert = async (): Promise<boolean> =>
      (
        await db.query(
          `insert into idempotency_keys (account_id, key, request_hash, created_at, locked_until)
           values ($1, $2, $3, $4, $5) on conflict do nothing`,
          [accountId, idem.key, hash, now, new Date(now.getTime() + LOCK_MS)],
        )
      ).rowCount === 1;
    if (await tryInsert()) {
      idem.acquired = true;
      return;
    }
    const existing = (await db.query<Row>('select * from idempotency_keys where account_id = $1 and key = $2', [accountId, idem.key]))
      .rows[0];
    // Expired record, or an in-flight one whose owner died: take it over atomically.
    const takeOver = async (): Promise<boolean> => {
      const r = await db.query(
        `update idempotency_keys set request_hash = $3, created_at = $4, locked_until = $5,
           status_code = null, response_ciphertext = null, result_type = null, result_id = null
         where account_id = $1 and key = $2
           and (created_at < $6 or (status_code is null and locked_until < $4))`,
        [accountId, idem.key, hash, now, new Date(now.getTime() + LOCK_MS), new Date(now.getTime() - TTL_MS)],
      );
      return r.rowCount === 1;
    };
    if (!existing || existing.created_at.getTime() < now.getTime() - TTL_MS) {
      if (existing ? await takeOver() : await tryInsert()) {
        idem.acquired = true;
        return;
      }
      throw errors.conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry shortly.');
    }
    if (existing.request_hash !== hash) {
      throw errors.conflict(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request. Use a new key for a different request.',
        { param: 'Idempotency-Key' },
      );
    }
    if (existing.status_code === null && existing.result_type && existing.result_id) {
      // The first request committed its change but its response was never stored: answer with
      // the result it created (never run the change again).
      const replay = await replayers.get(existing.result_type)?.(accountId, existing.result_id);
      if (replay) {
        req.idempotency = null;
        reply.header('Idempotent-Replayed', 'true');
        return reply.status(replay.statusCode).send(replay.body);
      }
    }
    if (existing.status_code === null) {
      if (existing.locked_until.getTime() < now.getTime() && (await takeOver())) {
        idem.acquired = true;
        return;
      }
      throw new AppError(
        'conflict',
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed. Retry shortly.',
        {
          retryAfterSeconds: 1,
        },
      );
    }
    req.idempotency = null; // replaying: nothing to store on the way out
    const stored = JSON.parse(cipher.decryptString(existing.response_ciphertext!, idempotencyAad(accountId, idem.key))) as StoredResponse;
    for (const [k, v] of Object.entries(stored.headers)) reply.header(k, v);
    reply.header('Idempotent-Replayed', 'true');
    return reply.status(existing.status_code).send(stored.body);
  };

  const store: onSendAsyncHookHandler = async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem?.acquired || !req.auth) return payload;
    idem.acquired = false;
    const storable = typeof payload === 'string' || Buffer.isBuffer(payload) || payload === null || payload === undefined;
    if (reply.statusCode >= 500 || !storable) {
      // A 5xx releases the key so a retry can run — unless the change committed (a bound result), which a retry must replay.
      await db.query('delete from idempotency_keys where account_id = $1 and key = $2 and result_type is null', [
        req.auth.accountId,
        idem.key,
      ]);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'location']) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    const stored: StoredResponse = { headers, body: payload === null || payload === undefined ? '' : String(payload) };
    await db.query(
      `update idempotency_keys set status_code = $3, response_ciphertext = $4
       where account_id = $1 and key = $2`,
      [
        req.auth.accountId,
        idem.key,
        reply.statusCode,
        cipher.encrypt(JSON.stringify(stored), idempotencyAad(req.auth.accountId, idem.key)),
      ],
    );
    return payload;
  };

  const list = <T>(h: T | T[] | undefined): T[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);
  app.addHook('onRoute', (route) => {
    if (!list(route.method).includes('POST')) return;
    // Before the route's own hooks, as when these were the app's hooks.
    route.preParsing = [takeBody, ...list(route.preParsing)];
    route.preValidation = [acquire, ...list(route.preValidation)];
    route.onSend = [store, ...list(route.onSend)];
  });
});
