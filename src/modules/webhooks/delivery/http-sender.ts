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
 * - no keep-alive agent, so no connection outlives the attempt that checked its address.
 * It never throws: every outcome is a SendResult.
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

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  resolver: Resolver;
  maxBodyBytes?: number;
  userAgent?: string;
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

export function createHttpSender(opts: SenderOptions): Sender {
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const lookup = guardedLookup(opts);
  return (req) =>
    new Promise<SendResult>((resolve) => {
      const started = performance.now();
      let settled = false;
      let request: http.ClientRequest | undefined;
      const finish = (r: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request?.destroy();
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
        const mod = u.protocol === 'https:' ? https : http;
        const body = Buffer.from(req.body, 'utf8');
        request = mod.request({
          protocol: u.protocol,
          hostname: host,
          port: u.port || undefined,
          path: `${u.pathname}${u.search}`,
          method: 'POST',
          agent: false,
          lookup: lookup as never,
          headers: {
            ...req.headers,
            'content-length': String(body.length),
            'user-agent': opts.userAgent ?? 'dte-service-webhooks/1',
            connection: 'close',
          },
        });
        request.on('error', fail);
        request.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () =>
            finish({
              statusCode: res.statusCode ?? null,
              responseBody: toText(Buffer.concat(chunks).subarray(0, maxBody)),
              retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
              error: null,
            });
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
            if (size >= maxBody) done(); // enough: the rest is never read
          });
          res.on('end', done);
          res.on('error', () => done());
          res.on('aborted', () => done());
        });
        request.end(body);
      })().catch(fail);
    });
}
