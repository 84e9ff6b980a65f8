import { rateLimitWaitMs } from '../errors.ts';
import { ProviderError } from '../port.ts';
import type { Pacer } from './pacing.ts';
import { FILE_PART, INPUT_PART } from './protocol.ts';

/**
 * The HTTP transport to SimpleAPI: multipart bodies (`input`, then `files`: protocol.ts), the bare
 * API key in Authorization (the collection's own auth setting; `Bearer` is refused), a timeout
 * per attempt, and retries with exponential backoff and jitter on transient failures only.
 *
 * Retry policy, by what a failure proves:
 *  - connection refused / DNS failure: the request never left, always safe to retry;
 *  - 502/503/504: the provider says it did not process the request, retried;
 *  - timeout or a connection reset mid-request: the provider may have acted (issued a CAF,
 *    received an envelope), so only `idempotent` calls (queries) are retried; the others surface
 *    as `timeout`/`unavailable` and the caller's job decides.
 * Response bodies are kept as raw bytes (SII XML is ISO-8859-1) up to a cap. Error messages are
 * built from status and a short, redacted excerpt: never the key, the password or the .pfx.
 */
export interface FilePart {
  name: string;
  data: Buffer;
  type: string;
}

export interface SimpleApiRequest {
  host: 'api' | 'servicios';
  method: 'GET' | 'POST';
  path: string;
  apiKey: string;
  input?: unknown;
  files?: FilePart[];
  idempotent: boolean;
  /** Strings to scrub from any error text (passwords). */
  secrets?: string[];
  /** Non-2xx statuses whose body the caller reads itself (a failed upload's JSON is a 400). */
  answerStatuses?: readonly number[];
}

export interface SimpleApiResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface SimpleApiClientOptions {
  apiBaseUrl: string;
  serviciosBaseUrl: string;
  timeoutMs: number;
  retries: number;
  /** First backoff delay; doubles per attempt, ±20 % jitter. */
  backoffBaseMs?: number;
  maxResponseBytes?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Paces every attempt to the provider's rate limits (pacing.ts); a 429 blocks the key and host
   * for its Retry-After and the attempt is made again, not counted as a retry.
   */
  pacer?: Pacer | undefined;
  /** Told of every HTTP attempt (the metrics, src/ops/metrics.ts); `status` null when no answer came. */
  observer?: ProviderCallObserver | undefined;
}

export interface ProviderCallObserver {
  call(host: 'api' | 'servicios', operation: string, status: number | null): void;
}

/** A path as a metrics label: the numbers in it (document type, quantity, folios) become `:n`. */
export const operationOf = (path: string): string => path.replace(/\/\d+(?=\/|$)/g, '/:n');

const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const causeCode = (e: unknown): string | undefined => {
  const c = (e as { cause?: { code?: string } })?.cause;
  return c?.code ?? (e as { code?: string })?.code;
};

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('[redacted]');
  return out;
}

/** A short, printable excerpt of a response body for error messages. */
export function excerpt(body: Buffer, secrets: readonly string[] = [], max = 200): string {
  // JSON and text answers are UTF-8; SII XML is ISO-8859-1 (never valid UTF-8 when it has accents).
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    decoded = body.toString('latin1');
  }
  const text = decoded.replace(/[^\x20-\x7e\u00a0-\u024f]+/g, ' ').trim();
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return redact(short, secrets);
}

/** `Retry-After` as seconds or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number {
  if (value && /^\d+(\.\d+)?$/.test(value.trim())) return Math.max(0, Math.round(Number(value) * 1000));
  const at = value ? Date.parse(value) : NaN;
  return Number.isFinite(at) ? Math.max(0, at - now) : 1000;
}

/**
 * Maps a non-2xx answer to the provider error it means, from the provider's published answers
 * (protocol.ts sources; docs/emulator.md, "Errors"):
 *  - 429 text/plain "API calls quota exceeded! …" + Retry-After → rate_limited (wait, never a failure);
 *  - "Apikey vencida" (401 JSON `error` on servicios) → expired key;
 *  - "Límite de la suscripción alcanzado" (JSON `Mensaje`) → the plan is exhausted, the only answer
 *    that means so;
 *  - "API KEY Incorrecta" (401 JSON `Mensaje` on servicios) → invalid key;
 *  - an empty 401 → invalid key *or* a certificate the SII refused: flagged `emptyUnauthorized` for
 *    the adapter to tell which (simpleapi.ts);
 *  - "intermitencias", "no está disponible … más tarde" (400 JSON `mensaje`) → the SII is down, retried;
 *  - 5xx → unavailable; anything else → rejected, with the provider's text.
 */
export function errorForStatus(
  status: number,
  body: Buffer,
  secrets: readonly string[] = [],
  headers?: Pick<Headers, 'get'>,
): ProviderError & { emptyUnauthorized?: boolean } {
  const text = excerpt(body, secrets);
  if (status === 429) {
    return new ProviderError('rate_limited', `The billing provider's rate limit was reached${text ? `: ${text}` : ''}.`, status, {
      retryAfterMs: retryAfterMs(headers?.get('retry-after')),
    });
  }
  if (/apikey vencida/i.test(text))
    return new ProviderError('expired_api_key', 'The billing-provider API key has expired (Apikey vencida).', status);
  if (/l[ií]mite de la suscripci[oó]n/i.test(text)) {
    return new ProviderError(
      'quota_exhausted',
      'The billing-provider plan has no calls left (Límite de la suscripción alcanzado).',
      status,
    );
  }
  if (/api ?key incorrecta/i.test(text)) return new ProviderError('invalid_api_key', 'The billing provider refused the API key.', status);
  if (status === 401 || status === 403) {
    return text === ''
      ? Object.assign(new ProviderError('invalid_api_key', 'The billing provider refused the API key.', status), {
          emptyUnauthorized: true,
        })
      : new ProviderError('rejected', `The billing provider refused the request (${status}): ${text}`, status);
  }
  if (/intermitencias|no est[aá] disponible|intenta m[aá]s tarde|favor reintentar/i.test(text)) {
    return new ProviderError('unavailable', `The SII is not answering through the billing provider: ${text}`, status);
  }
  if (status >= 500) return new ProviderError('unavailable', `The billing provider failed (${status}).`, status);
  return new ProviderError('rejected', `The billing provider rejected the request (${status})${text ? `: ${text}` : ''}`, status);
}

async function readCapped(res: Response, max: number): Promise<Buffer> {
  const len = Number(res.headers.get('content-length') ?? '0');
  if (len > max) throw new ProviderError('unavailable', `The billing provider sent a ${len}-byte answer, more than the ${max} accepted.`);
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > max) throw new ProviderError('unavailable', `The billing provider sent more than ${max} bytes.`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export function createSimpleApiClient(opts: SimpleApiClientOptions) {
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const base = opts.backoffBaseMs ?? 500;
  const maxBytes = opts.maxResponseBytes ?? 32 * 1024 * 1024;

  const once = async (req: SimpleApiRequest): Promise<SimpleApiResponse> => {
    const url = (req.host === 'api' ? opts.apiBaseUrl : opts.serviciosBaseUrl) + req.path;
    let body: FormData | undefined;
    if (req.method === 'POST') {
      body = new FormData();
      body.append(INPUT_PART, JSON.stringify(req.input ?? {}));
      for (const f of req.files ?? []) body.append(FILE_PART, new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
    }
    let res: Response;
    const observe = (status: number | null) => opts.observer?.call(req.host, operationOf(req.path), status);
    try {
      res = await doFetch(url, {
        method: req.method,
        headers: { authorization: req.apiKey, accept: 'application/json, application/xml, text/xml, */*' },
        ...(body ? { body } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (e) {
      observe(null);
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw Object.assign(new ProviderError('timeout', `The billing provider did not answer within ${opts.timeoutMs} ms.`), {
          sent: true,
        });
      }
      const code = causeCode(e);
      throw Object.assign(new ProviderError('unavailable', `The billing provider is unreachable${code ? ` (${code})` : ''}.`), {
        sent: !(code && CONNECT_ERRORS.has(code)),
      });
    }
    observe(res.status);
    let buf: Buffer;
    try {
      buf = await readCapped(res, maxBytes);
    } catch (e) {
      if (e instanceof ProviderError) throw Object.assign(e, { sent: true });
      const name = (e as Error)?.name;
      const kind = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unavailable';
      throw Object.assign(new ProviderError(kind, 'The billing provider connection broke while answering.'), { sent: true });
    }
    if ((res.status < 200 || res.status >= 300) && !(req.answerStatuses ?? []).includes(res.status)) {
      throw Object.assign(errorForStatus(res.status, buf, [req.apiKey, ...(req.secrets ?? [])], res.headers), {
        sent: res.status < 502 || res.status > 504,
      });
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: buf };
  };

  return {
    async request(req: SimpleApiRequest): Promise<SimpleApiResponse> {
      for (let attempt = 0; ; attempt++) {
        try {
          await opts.pacer?.acquire(req.apiKey, req.host);
          return await once(req);
        } catch (e) {
          const pe = e as ProviderError & { sent?: boolean };
          // A 429 is waited out through the pacer, every process's calls with it, not by this backoff.
          const waitMs = rateLimitWaitMs(e);
          if (waitMs !== undefined && opts.pacer && pe.status === 429) {
            await opts.pacer.block(req.apiKey, req.host, waitMs);
            attempt--;
            continue;
          }
          const retryable =
            pe instanceof ProviderError && pe.transient && pe.kind !== 'rate_limited' && (req.idempotent || pe.sent === false);
          if (!retryable || attempt >= opts.retries) throw e;
          const delay = base * 2 ** attempt;
          await sleep(Math.round(delay * (0.8 + Math.random() * 0.4)));
        }
      }
    },
  };
}

export type SimpleApiClient = ReturnType<typeof createSimpleApiClient>;
