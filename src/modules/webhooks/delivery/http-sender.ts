import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { bareHost, ForbiddenAddressError, guardedLookup, resolveAllowed, type Resolver } from './url-policy.ts';

/**
 * Sends one webhook attempt. Rules (docs/webhooks.md "Retries, timeouts and disabling"; Svix's worker):
 * - the connection goes only to an address the guard checked (IP literals are checked here; names
 *   are resolved and checked by the `lookup` the socket uses, so the checked address is the one
 *   connected to; TLS still verifies the certificate for the name, sent as SNI and Host);
 * - one deadline covers DNS, connect, TLS, the response head and the body read: a receiver that
 *   hangs costs at most `timeoutMs`;
 * - redirects are never followed (node's http does not follow them; a 3xx is just a status);
 * - at most `maxBodyBytes` of the response are read, then the socket is dropped;
 * - connections are kept alive per origin (scheme, host, port) for `keepAliveIdleMs` between
 *   attempts, at most `maxSocketsPerOrigin` of them: a kept connection is to the address checked
 *   when it was opened, and a new one is checked again; a response not read to its end (over the
 *   cap, a timeout, an error) drops its connection. A kept connection the receiver closed while it
 *   sat idle fails before any response, so that one request is sent once more on a new connection
 *   (same bytes and `webhook-id`; receivers deduplicate by it).
 * It never throws: every outcome is a SendResult. `close()` drops the kept connections.
 */
export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  /** HTTP status, when a response head arrived. */
  statusCode: number | null;
  /** Response body, truncated to the cap and made safe for a text column. */
  responseBody: string | null;
  retryAfter: string | undefined;
  /** Short reason when there was no usable response: timeout, refused, forbidden address, … */
  error: string | null;
  durationMs: number;
}

export type Sender = (req: SendRequest) => Promise<SendResult>;
export type HttpSender = Sender & { close(): void };

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  resolver: Resolver;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Kept-alive connections per origin (default 32; 0 = a new connection per attempt, closed after it). */
  maxSocketsPerOrigin?: number;
  /** How long a kept connection may sit idle (default 2 s, below the usual 5 s of servers). */
  keepAliveIdleMs?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/** Text safe for PostgreSQL (no NUL) and never longer than the cap in bytes. */
const toText = (buf: Buffer): string => buf.toString('utf8').replace(/\u0000/g, '\uFFFD');

const describe = (e: unknown): string => {
  if (e instanceof ForbiddenAddressError) return `forbidden_address: ${e.message}`;
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ETIMEDOUT_WEBHOOK':
      return err.message;
    case 'ECONNREFUSED':
      return 'connection_refused: nothing is listening at the receiver address';
    case 'ECONNRESET':
      return 'connection_reset: the receiver closed the connection';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dns_error: ${err.message}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `unreachable: ${err.message}`;
    default:
      if (err?.code?.startsWith('ERR_TLS') || err?.code?.includes('CERT') || err?.code === 'DEPTH_ZERO_SELF_SIGNED_CERT')
        return `tls_error: ${err.code}`;
      return `request_error: ${err?.code ?? ''} ${err?.message ?? String(e)}`.trim();
  }
};

export function createHttpSender(opts: SenderOptions): HttpSender {
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const lookup = guardedLookup(opts);
  const maxSockets = opts.maxSocketsPerOrigin ?? 32;
  const agentOptions = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    timeout: opts.keepAliveIdleMs ?? 2_000,
    scheduling: 'lifo' as const,
  };
  // Node pools an agent's connections by origin; `lookup` (the guard) runs for each new one.
  const agents = maxSockets > 0 ? { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) } : undefined;
  const send: Sender = (req) =>
    new Promise<SendResult>((resolve) => {
      const started = performance.now();
      let settled = false;
      let request: http.ClientRequest | undefined;
      const finish = (r: Omit<SendResult, 'durationMs'>, complete = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // A response read to its end leaves its connection to the pool; anything else drops it.
        if (!complete) request?.destroy();
        resolve({ ...r, durationMs: Math.round(performance.now() - started) });
      };
      const fail = (e: unknown) => finish({ statusCode: null, responseBody: null, retryAfter: undefined, error: describe(e) });
      const timer = setTimeout(
        () => fail(Object.assign(new Error(`timeout: no complete response within ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT_WEBHOOK' })),
        opts.timeoutMs,
      );
      void (async () => {
        const u = new URL(req.url);
        const host = bareHost(u);
        // net.connect skips `lookup` for IP literals, so those are checked here.
        if (net.isIP(host)) await resolveAllowed(host, opts);
        if (settled) return;
        const isHttps = u.protocol === 'https:';
        const mod = isHttps ? https : http;
        const body = Buffer.from(req.body, 'utf8');
        const start = (fresh: boolean) => {
          const r = mod.request({
            protocol: u.protocol,
            hostname: host,
            port: u.port || undefined,
            path: `${u.pathname}${u.search}`,
            method: 'POST',
            agent: fresh || !agents ? false : isHttps ? agents.https : agents.http,
            lookup: lookup as never,
            headers: {
              ...req.headers,
              'content-length': String(body.length),
              'user-agent': opts.userAgent ?? 'dte-service-webhooks/1',
              ...(fresh || !agents ? { connection: 'close' } : {}),
            },
          });
          request = r;
          let answered = false;
          r.on('error', (e: NodeJS.ErrnoException) => {
            if (settled || request !== r) return;
            // A kept connection the receiver closed while idle: once more on a new connection.
            if (!answered && r.reusedSocket && !fresh && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) return start(true);
            fail(e);
          });
          r.on('response', (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            let size = 0;
            const done = (complete: boolean) =>
              finish(
                {
                  statusCode: res.statusCode ?? null,
                  responseBody: toText(Buffer.concat(chunks).subarray(0, maxBody)),
                  retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
                  error: null,
                },
                complete,
              );
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              size += c.length;
              if (size >= maxBody) done(false); // enough: the rest is never read
            });
            res.on('end', () => done(true));
            res.on('error', () => done(false));
            res.on('aborted', () => done(false));
          });
          r.end(body);
        };
        start(false);
      })().catch(fail);
    });
  return Object.assign(send, {
    close() {
      agents?.http.destroy();
      agents?.https.destroy();
    },
  });
}
