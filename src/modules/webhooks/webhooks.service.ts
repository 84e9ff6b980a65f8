import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { EVENT_TYPES, isEventType, type EventType } from '../../events/event-types.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import { endpointsStore, type EndpointRow } from './endpoints.store.ts';
import { messagesStore, type AttemptRow, type DeliveryCounts, type MessageRow } from './messages.store.ts';
import { decryptSecret, encryptSecret } from './secret-store.ts';
import { generateSecret, type SignatureScheme } from './signing.ts';
import { testEventPayload } from './test-event.ts';
import { checkWebhookUrl, systemResolver, type Resolver } from './delivery/url-policy.ts';

/** Endpoints, secrets, test events, resends and the delivery log. Knows nothing of HTTP. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 100;
/** After a rotation the previous secret keeps signing (standard-webhooks scheme) this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600_000;

export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  filterTypes: string[];
  signatureScheme: SignatureScheme;
  disabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  endpointId: string;
  attemptNumber: number;
  status: 'succeeded' | 'failed';
  responseStatusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  nextAttemptAt: string | null;
}

export type MessageStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'no_endpoints';

export interface Message {
  id: string;
  eventType: string;
  /** `livemode` is absent from messages emitted before test mode (migration 202612050900_test_mode). */
  payload: { event: string; timestamp: string; livemode?: boolean; data: Record<string, unknown> };
  createdAt: string;
  status: MessageStatus;
  attempts: Attempt[];
}

export const toEndpoint = (r: EndpointRow): Endpoint => ({
  id: r.id,
  url: r.url,
  description: r.description,
  filterTypes: r.filter_types,
  signatureScheme: r.signature_scheme,
  disabled: r.disabled,
  disabledReason: r.disabled_reason,
  disabledAt: r.disabled_at?.toISOString() ?? null,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const toAttempt = (a: AttemptRow): Attempt => ({
  endpointId: a.endpoint_id,
  attemptNumber: a.attempt_number,
  status: a.status,
  responseStatusCode: a.response_status_code,
  responseBody: a.response_body,
  error: a.error,
  durationMs: a.duration_ms,
  attemptedAt: a.attempted_at.toISOString(),
  nextAttemptAt: a.next_attempt_at?.toISOString() ?? null,
});

export const messageStatus = (c: DeliveryCounts | undefined): MessageStatus =>
  !c ? 'no_endpoints' : c.pending ? 'pending' : c.failed ? 'failed' : c.succeeded ? 'succeeded' : 'cancelled';

/** Validates filterTypes: known names only (400 naming the entry), duplicates dropped. */
export function normaliseFilterTypes(v: string[] | undefined): string[] {
  if (!v) return [];
  v.forEach((t, i) => {
    if (!isEventType(t))
      throw errors.invalid('invalid_event_type', `'${t}' is not an event name. Use one of: ${EVENT_TYPES.join(', ')}.`, {
        param: `filterTypes[${i}]`,
      });
  });
  return [...new Set(v)];
}

/** An endpoint's URL as the audit log keeps it: origin and path, never user-info or a query (which may carry a token). */
const auditUrl = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
};

export interface WebhooksServiceDeps {
  db: Db;
  clock: Clock;
  cipher: DataCipher;
  settings: { allowPrivateNetworks: boolean };
  resolver?: Resolver;
  /** The audit log's recorder (docs/audit.md): endpoint changes are recorded in their transaction, never the secret. */
  audit?: AuditRecorder | undefined;
  /** Whether a scope id is live (accounts.scopeOf): a test event says its endpoint's mode. Absent: live. */
  livemodeOf?: ((scopeId: string, sql: Sql) => Promise<boolean>) | undefined;
}

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, clock, cipher } = deps;
  const urlOpts = { allowPrivateNetworks: deps.settings.allowPrivateNetworks, resolver: deps.resolver ?? systemResolver };

  const getRow = async (accountId: string, id: string, param?: string): Promise<EndpointRow> => {
    const row = UUID_RE.test(id) ? await endpointsStore.get(db, accountId, id) : undefined;
    if (!row) throw errors.notFound('webhook_endpoint', id, param);
    return row;
  };

  const toMessages = async (rows: MessageRow[], accountId: string): Promise<Map<string, Message>> => {
    const ids = rows.map((r) => r.id);
    // Statuses first, then attempts, one after the other: an attempt and its delivery's status are
    // committed together, so a status read here always comes with its attempt in the next read.
    // (In parallel, on two connections, a reader could see "failed" and no attempt yet.)
    const counts = await messagesStore.deliveryCountsFor(db, accountId, ids);
    const attempts = await messagesStore.attemptsFor(db, accountId, ids);
    const countsBy = new Map(counts.map((c) => [c.message_id, c]));
    const out = new Map<string, Message>();
    for (const r of rows)
      out.set(r.id, {
        id: r.id,
        eventType: r.event_type,
        payload: JSON.parse(r.payload) as Message['payload'],
        createdAt: r.created_at.toISOString(),
        status: messageStatus(countsBy.get(r.id)),
        attempts: [],
      });
    for (const a of attempts) out.get(a.message_id)?.attempts.push(toAttempt(a));
    return out;
  };

  const getMessage = async (accountId: string, id: string): Promise<Message> => {
    const row = UUID_RE.test(id) ? await messagesStore.get(db, accountId, id) : undefined;
    if (!row) throw errors.notFound('webhook_message', id);
    return (await toMessages([row], accountId)).get(row.id)!;
  };

  /** One new delivery of an existing message to one endpoint, due now. */
  const enqueueDelivery = async (accountId: string, messageId: string, endpointId: string) => {
    const now = clock.now();
    await db.transaction((tx) => messagesStore.insertDeliveries(tx, [{ id: newId(), accountId, messageId, endpointId }], now, now));
  };

  const requireEnabled = (row: EndpointRow, param?: string) => {
    if (row.disabled)
      throw errors.conflict(
        'webhook_endpoint_disabled',
        `Webhook endpoint ${row.id} is disabled (${row.disabled_reason}). Re-enable it with PATCH {"disabled": false} first.`,
        param ? { param } : {},
      );
  };

  return {
    /**
     * `bindResult`, when given, runs in the transaction that inserts the endpoint: the API binds
     * the request's Idempotency-Key to it there, so a retry after a lost response answers with
     * this endpoint (createdEndpointById) instead of registering another
     * (src/http/plugins/idempotency.ts).
     */
    async createEndpoint(
      accountId: string,
      input: {
        url: string;
        filterTypes?: string[] | undefined;
        description?: string | undefined;
        signatureScheme?: SignatureScheme | undefined;
      },
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
      actor?: AuditActor,
    ): Promise<Endpoint & { secret: string }> {
      const filterTypes = normaliseFilterTypes(input.filterTypes);
      const url = await checkWebhookUrl(input.url, urlOpts);
      const id = newId();
      const secret = generateSecret();
      const row = await db.transaction(async (tx) => {
        if ((await endpointsStore.count(tx, accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT)
          throw errors.unprocessable(
            'webhook_endpoint_limit_reached',
            `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints. Delete one you no longer use.`,
          );
        const inserted = await endpointsStore.insert(tx, {
          id,
          accountId,
          url,
          description: input.description?.trim() || null,
          filterTypes,
          scheme: input.signatureScheme ?? 'hmac-sha256-body',
          secretEnc: encryptSecret(cipher, accountId, id, secret),
          now: clock.now(),
        });
        await opts.bindResult?.(tx, id);
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'webhook_endpoint.created',
          target: { type: 'webhook_endpoint', id },
          details: { url: auditUrl(url), filterTypes },
        });
        return inserted;
      });
      return { ...toEndpoint(row), secret };
    },

    /** An endpoint by id within the account, shaped as createEndpoint answers (the replay of a create whose response was lost). */
    async createdEndpointById(accountId: string, id: string): Promise<Endpoint & { secret: string }> {
      const row = await getRow(accountId, id);
      return { ...toEndpoint(row), secret: decryptSecret(cipher, accountId, row.id, row.secret_enc) };
    },

    async getEndpoint(accountId: string, id: string): Promise<Endpoint> {
      return toEndpoint(await getRow(accountId, id));
    },

    async listEndpoints(accountId: string, q: { limit: number; iterator?: string | undefined }): Promise<Page<Endpoint>> {
      const rows = await endpointsStore.list(db, accountId, { limit: q.limit, cursor: decodeIterator(q.iterator) });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toEndpoint);
    },

    async updateEndpoint(
      accountId: string,
      id: string,
      patch: { url?: string; filterTypes?: string[]; description?: string | null; signatureScheme?: SignatureScheme; disabled?: boolean },
      actor?: AuditActor,
    ): Promise<Endpoint> {
      await getRow(accountId, id);
      const filterTypes = patch.filterTypes === undefined ? undefined : normaliseFilterTypes(patch.filterTypes);
      const url = patch.url === undefined ? undefined : await checkWebhookUrl(patch.url, urlOpts);
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const r = await endpointsStore.update(
          tx,
          accountId,
          id,
          {
            ...(url !== undefined ? { url } : {}),
            ...(filterTypes !== undefined ? { filterTypes } : {}),
            ...(patch.description !== undefined ? { description: patch.description?.trim() || null } : {}),
            ...(patch.signatureScheme !== undefined ? { signatureScheme: patch.signatureScheme } : {}),
          },
          now,
        );
        if (!r) return undefined;
        if (patch.disabled === true) await endpointsStore.disable(tx, id, 'manual', now);
        if (patch.disabled === false) await endpointsStore.enable(tx, accountId, id, now);
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'webhook_endpoint.updated',
          target: { type: 'webhook_endpoint', id },
          details: {
            fields: Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined),
            url: url === undefined ? null : auditUrl(url),
          },
        });
        return endpointsStore.get(tx, accountId, id);
      });
      if (!row) throw errors.notFound('webhook_endpoint', id);
      return toEndpoint(row);
    },

    /** Deletes the endpoint; what it had not been sent yet is cancelled, the log is kept. */
    async deleteEndpoint(accountId: string, id: string, actor?: AuditActor): Promise<void> {
      await getRow(accountId, id);
      const gone = await db.transaction(async (tx) => {
        await messagesStore.cancelPendingFor(tx, accountId, id, clock.now());
        const removed = await endpointsStore.remove(tx, accountId, id);
        if (removed)
          await deps.audit?.recordIn(tx, actor, {
            accountId,
            action: 'webhook_endpoint.deleted',
            target: { type: 'webhook_endpoint', id },
          });
        return removed;
      });
      if (!gone) throw errors.notFound('webhook_endpoint', id);
    },

    async getSecret(accountId: string, id: string): Promise<{ secret: string }> {
      const row = await getRow(accountId, id);
      return { secret: decryptSecret(cipher, accountId, row.id, row.secret_enc) };
    },

    /**
     * A new secret signs from now on. With the standard-webhooks scheme the old one also signs
     * for 24 h (two space-separated signatures) so receivers can switch without dropping events;
     * the contract scheme has room for one signature only, so it switches at once.
     */
    async rotateSecret(accountId: string, id: string, actor?: AuditActor): Promise<{ secret: string }> {
      if (!UUID_RE.test(id)) throw errors.notFound('webhook_endpoint', id);
      const secret = generateSecret();
      const now = clock.now();
      await db.transaction(async (tx) => {
        const row = await endpointsStore.get(tx, accountId, id, { forUpdate: true });
        if (!row) throw errors.notFound('webhook_endpoint', id);
        const old = decryptSecret(cipher, accountId, row.id, row.secret_enc);
        await endpointsStore.setSecret(tx, accountId, row.id, {
          secretEnc: encryptSecret(cipher, accountId, row.id, secret),
          previousEnc: encryptSecret(cipher, accountId, row.id, old, 'previous'),
          previousExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
          now,
        });
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'webhook_endpoint.secret_rotated',
          target: { type: 'webhook_endpoint', id: row.id },
        });
      });
      return { secret };
    },

    /** Sends a test event (see test-event.ts) to one endpoint, whatever its filter. */
    async sendTestEvent(accountId: string, endpointId: string, input: { eventType?: EventType | undefined } = {}): Promise<Message> {
      const row = await getRow(accountId, endpointId);
      requireEnabled(row);
      const type = input.eventType ?? 'tenant.credentials.updated';
      const now = clock.now();
      const id = newId();
      await db.transaction(async (tx) => {
        const livemode = deps.livemodeOf ? await deps.livemodeOf(accountId, tx) : true;
        await messagesStore.insertMessage(tx, {
          id,
          accountId,
          eventType: type,
          payload: testEventPayload(type, now, livemode),
          createdAt: now,
        });
        await messagesStore.insertDeliveries(tx, [{ id: newId(), accountId, messageId: id, endpointId: row.id }], now, now);
      });
      return getMessage(accountId, id);
    },

    /** Sends a message again to an endpoint: a new delivery with a fresh set of attempts, same webhook-id. */
    async resend(accountId: string, messageId: string, endpointId: string): Promise<Message> {
      const msg = UUID_RE.test(messageId) ? await messagesStore.get(db, accountId, messageId) : undefined;
      if (!msg) throw errors.notFound('webhook_message', messageId);
      const row = await getRow(accountId, endpointId, 'endpointId');
      requireEnabled(row, 'endpointId');
      await enqueueDelivery(accountId, msg.id, row.id);
      return getMessage(accountId, msg.id);
    },

    getMessage,

    async listMessages(
      accountId: string,
      q: { limit: number; iterator?: string | undefined; eventType?: string | undefined; endpointId?: string | undefined },
    ): Promise<Page<Message>> {
      if (q.eventType !== undefined && !isEventType(q.eventType))
        throw errors.invalid('invalid_event_type', `'${q.eventType}' is not an event name. Use one of: ${EVENT_TYPES.join(', ')}.`, {
          param: 'eventType',
        });
      // Any id of the right form: the log keeps the attempts of endpoints deleted since.
      if (q.endpointId !== undefined && !UUID_RE.test(q.endpointId))
        throw errors.invalid('invalid_parameter', `endpointId '${q.endpointId}' is not a webhook endpoint id.`, { param: 'endpointId' });
      const rows = await messagesStore.list(db, accountId, {
        limit: q.limit,
        cursor: decodeIterator(q.iterator),
        eventType: q.eventType,
        endpointId: q.endpointId,
      });
      const page = toPage(
        rows,
        q.limit,
        (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }),
        (r) => r,
      );
      const full = await toMessages(page.data, accountId);
      return { ...page, data: page.data.map((r) => full.get(r.id)!) };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
