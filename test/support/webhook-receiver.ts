import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/events/event-types.ts';

/**
 * A webhook receiver for tests, benches and the demo. It checks every request exactly as the
 * contract tells receivers to (docs/webhooks.md), independently of the service's own signing code:
 * - POST with `content-type: application/json`, `webhook-id`, `webhook-timestamp` (Unix seconds);
 * - `hmac-sha256-body`: `webhook-signature` equals base64(HMAC-SHA256(UTF-8 bytes of the secret
 *   as shown, raw body)), compared in constant time;
 * - `standard-webhooks`: the `standardwebhooks` library's `Webhook.verify` accepts it;
 * - the body is `{event, timestamp, data}` with a known event name and an ISO 8601 UTC timestamp.
 * Every request is recorded (verified or not, with the reason), retries included, and answered by
 * the `respond` policy: a status, a delay, a hang, a redirect.
 */
export type ReceiverScheme = 'hmac-sha256-body' | 'standard-webhooks';

export interface ReceivedDelivery {
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  payload: { event: string; timestamp: string; livemode?: boolean; data: Record<string, unknown> } | undefined;
  verified: boolean;
  /** Why verification failed, when it did. */
  problem: string | undefined;
  /** 1 for the first request with this webhook-id, 2 for the next… */
  seenCount: number;
  receivedAt: number;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up or the receiver closes). */
  hang?: boolean;
}

export type Respond = (d: ReceivedDelivery, all: ReceivedDelivery[]) => Reply | Promise<Reply>;

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Set once the endpoint exists (its URL is needed to create it). */
  secret: string | undefined;
  scheme: ReceiverScheme;
  respond: Respond;
  readonly deliveries: ReceivedDelivery[];
  /** Distinct webhook-ids received. */
  ids(): Set<string>;
  waitFor(pred: (all: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  waitForCount(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function verifyContractSignature(secret: string, body: string, header: string): boolean {
  const expected = crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('base64');
  const a = Buffer.from(expected);
  const b = Buffer.from(header);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function check(r: ReceiverScheme, secret: string | undefined, headers: http.IncomingHttpHeaders, body: string): string | undefined {
  if (!secret) return 'receiver has no secret yet';
  const h = (n: string) => (typeof headers[n] === 'string' ? (headers[n] as string) : '');
  if (!/^application\/json\b/.test(h('content-type'))) return `content-type is '${h('content-type')}'`;
  if (!h('webhook-id')) return 'no webhook-id';
  if (!/^\d{9,11}$/.test(h('webhook-timestamp'))) return `webhook-timestamp '${h('webhook-timestamp')}' is not Unix seconds`;
  if (r === 'hmac-sha256-body') {
    if (!verifyContractSignature(secret, body, h('webhook-signature'))) return 'signature does not match';
  } else {
    try {
      new Webhook(secret).verify(body, {
        'webhook-id': h('webhook-id'),
        'webhook-timestamp': h('webhook-timestamp'),
        'webhook-signature': h('webhook-signature'),
      });
    } catch (e) {
      return `standardwebhooks: ${(e as Error).message}`;
    }
  }
  let p: unknown;
  try {
    p = JSON.parse(body);
  } catch {
    return 'body is not JSON';
  }
  const o = p as Record<string, unknown>;
  // The contract's three fields and test mode's livemode (docs/webhooks.md "Events").
  if (!o || typeof o !== 'object' || Object.keys(o).sort().join() !== 'data,event,livemode,timestamp')
    return 'body is not {event, timestamp, livemode, data}';
  if (typeof o.livemode !== 'boolean') return 'livemode is not a boolean';
  if (!(EVENT_TYPES as readonly string[]).includes(String(o.event))) return `unknown event '${String(o.event)}'`;
  if (typeof o.timestamp !== 'string' || !ISO_UTC.test(o.timestamp)) return 'timestamp is not ISO 8601 UTC';
  if (!o.data || typeof o.data !== 'object' || Array.isArray(o.data)) return 'data is not an object';
  return undefined;
}

export async function startWebhookReceiver(
  opts: { secret?: string; scheme?: ReceiverScheme; respond?: Respond; host?: string } = {},
): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const seen = new Map<string, number>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const hung = new Set<http.ServerResponse>();
  const state = {
    secret: opts.secret,
    scheme: opts.scheme ?? ('hmac-sha256-body' as ReceiverScheme),
    respond: opts.respond ?? ((() => ({ status: 200 })) as Respond),
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const h = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : '');
        const id = h('webhook-id');
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        const problem = req.method !== 'POST' ? `method ${req.method}` : check(state.scheme, state.secret, req.headers, body);
        let payload: ReceivedDelivery['payload'];
        try {
          payload = JSON.parse(body) as ReceivedDelivery['payload'];
        } catch {
          payload = undefined;
        }
        const d: ReceivedDelivery = {
          webhookId: id,
          timestamp: h('webhook-timestamp'),
          signature: h('webhook-signature'),
          contentType: h('content-type'),
          body,
          payload,
          verified: problem === undefined,
          problem,
          seenCount: n,
          receivedAt: Date.now(),
        };
        deliveries.push(d);
        for (const w of [...waiters]) w();
        const reply = await state.respond(d, deliveries);
        if (reply.hang) {
          hung.add(res);
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? 'ok');
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const waitFor = (pred: (all: ReceivedDelivery[]) => boolean, timeoutMs = 15_000) =>
    new Promise<void>((resolve, reject) => {
      if (pred(deliveries)) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${deliveries.length} requests so far)`));
      }, timeoutMs);
      const w = () => {
        if (!pred(deliveries)) return;
        clearTimeout(timer);
        waiters.delete(w);
        resolve();
      };
      waiters.add(w);
    });

  return {
    url: `http://${(opts.host ?? '127.0.0.1').includes(':') ? `[${opts.host}]` : (opts.host ?? '127.0.0.1')}:${port}/hooks`,
    port,
    get secret() {
      return state.secret;
    },
    set secret(s) {
      state.secret = s;
    },
    get scheme() {
      return state.scheme;
    },
    set scheme(s) {
      state.scheme = s;
    },
    get respond() {
      return state.respond;
    },
    set respond(r) {
      state.respond = r;
    },
    deliveries,
    ids: () => new Set(deliveries.map((d) => d.webhookId)),
    waitFor,
    waitForCount: (n, timeoutMs) => waitFor((all) => all.length >= n, timeoutMs),
    async close() {
      for (const r of hung) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
