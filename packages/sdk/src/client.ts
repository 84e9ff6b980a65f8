import createClient, { type Client, type MaybeOptionalInit, type MethodResponse } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod } from 'openapi-typescript-helpers';
import { DteConnectionError, errorFromResponse, parseRetryAfter } from './errors.ts';
import type { paths } from './schema.d.ts';

/**
 * The client. Paths, parameters, bodies and results are typed from the service's OpenAPI document
 * (schema.d.ts, generated); this layer adds what every caller would otherwise write by hand:
 * - the API key on every request;
 * - an `Idempotency-Key` on every POST (a fresh UUID unless `idempotencyKey` is given), kept
 *   across the client's own retries so a retried POST never acts twice;
 * - retries of 429 and 503 after `Retry-After` (and of connection failures and timeouts),
 *   `maxRetries` times;
 * - every non-2xx answer thrown as a `DteApiError` subclass with `code`, `message`, `param`,
 *   `requestId`, `status`, `retryAfter`;
 * - `paginate()`: an async iterator over every item of a list, following `iterator` until `done`.
 */

export interface DteClientOptions {
  /** Where the service runs, e.g. `https://dte.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** An `sk_live_…` key. */
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Retries of 429 / 503 / connection failures before the error is thrown. Default 2. */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Each attempt is abandoned after this long (then retried like a connection failure). Default 60 s. */
  timeoutMs?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Per-call extras, beside openapi-fetch's `params`, `body`, `parseAs`, `headers`. */
export interface CallOptions {
  /** The `Idempotency-Key` of a POST; generated when omitted. Reuse it to retry a POST safely. */
  idempotencyKey?: string;
}

type Paths<M extends HttpMethod> = PathsWithMethod<paths, M>;
type Init<M extends HttpMethod, P extends Paths<M>> = MaybeOptionalInit<paths[P], M> & CallOptions;
/** The init argument: optional when the operation has no required parameter or body. */
type Args<M extends HttpMethod, P extends Paths<M>, I = Init<M, P>> =
  undefined extends MaybeOptionalInit<paths[P], M> ? [init?: I] : [init: I];
type Result<M extends HttpMethod, P extends Paths<M>, I = object> = MethodResponse<Client<paths>, M, P, I>;

/** The list paths: a GET answering `{data: [...], iterator, done}`. */
export type ListPath = {
  [P in Paths<'get'>]: Result<'get', P> extends { data: unknown[]; iterator: string | null; done: boolean } ? P : never;
}[Paths<'get'>];
/** One item of a list. */
export type ListItem<P extends ListPath> = Result<'get', P> extends { data: (infer T)[] } ? T : never;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DteClient {
  /** The typed openapi-fetch client underneath (same auth, idempotency, retries and errors). */
  readonly api: Client<paths>;
  private readonly options: Required<Omit<DteClientOptions, 'headers'>> & { headers: Record<string, string> };

  constructor(options: DteClientOptions) {
    if (!options.baseUrl) throw new TypeError('DteClient: baseUrl is required');
    if (!options.apiKey) throw new TypeError('DteClient: apiKey is required (sk_live_…)');
    this.options = {
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      maxRetries: options.maxRetries ?? 2,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      headers: options.headers ?? {},
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
    };
    this.api = createClient<paths>({ baseUrl: this.options.baseUrl, fetch: (req) => this.send(req) });
    this.api.use({
      onRequest: ({ request }) => {
        request.headers.set('authorization', `Bearer ${this.options.apiKey}`);
        for (const [k, v] of Object.entries(this.options.headers)) request.headers.set(k, v);
        if (request.method === 'POST' && !request.headers.has('idempotency-key'))
          request.headers.set('idempotency-key', crypto.randomUUID());
        return request;
      },
      onResponse: async ({ response }) => {
        if (!response.ok) throw await errorFromResponse(response);
        return undefined;
      },
    });
  }

  get<P extends Paths<'get'>, I extends Init<'get', P>>(path: P, ...init: Args<'get', P, I>): Promise<Result<'get', P, I>> {
    return this.call('GET', path, init[0]);
  }
  post<P extends Paths<'post'>, I extends Init<'post', P>>(path: P, ...init: Args<'post', P, I>): Promise<Result<'post', P, I>> {
    return this.call('POST', path, init[0]);
  }
  patch<P extends Paths<'patch'>, I extends Init<'patch', P>>(path: P, ...init: Args<'patch', P, I>): Promise<Result<'patch', P, I>> {
    return this.call('PATCH', path, init[0]);
  }
  put<P extends Paths<'put'>, I extends Init<'put', P>>(path: P, ...init: Args<'put', P, I>): Promise<Result<'put', P, I>> {
    return this.call('PUT', path, init[0]);
  }
  /** Resolves to the response body, or undefined for a 204. */
  delete<P extends Paths<'delete'>, I extends Init<'delete', P>>(path: P, ...init: Args<'delete', P, I>): Promise<Result<'delete', P, I>> {
    return this.call('DELETE', path, init[0]);
  }

  /**
   * Every item of a list, page after page (`limit` per request, default the service's 50):
   * `for await (const t of dte.paginate('/api/v1/tenants', {params: {query: {status: 'active'}}}))`.
   */
  async *paginate<P extends ListPath>(path: P, ...init: Args<'get', P>): AsyncGenerator<ListItem<P>, void, undefined> {
    const base = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let iterator: string | null | undefined;
    for (;;) {
      const query = { ...base.params?.query, ...(iterator ? { iterator } : {}) };
      const page = (await this.call('GET', path, { ...base, params: { ...base.params, query } })) as {
        data: ListItem<P>[];
        iterator: string | null;
        done: boolean;
      };
      yield* page.data;
      if (page.done || !page.iterator || page.iterator === iterator) return;
      iterator = page.iterator;
    }
  }

  private async call<T>(method: Uppercase<HttpMethod>, path: string, init: object | undefined): Promise<T> {
    const { idempotencyKey, ...rest } = (init ?? {}) as CallOptions & { headers?: unknown };
    const headers = new Headers((rest.headers ?? {}) as ConstructorParameters<typeof Headers>[0]);
    if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey);
    const request = this.api.request as unknown as (m: string, p: string, i: object) => Promise<{ data?: T }>;
    const { data } = await request(method.toLowerCase(), path, { ...rest, headers });
    return data as T;
  }

  /** One HTTP exchange, retried on 429/503 (after Retry-After) and on connection failures. */
  private async send(request: Request): Promise<Response> {
    const { fetch, maxRetries, maxRetryDelayMs, timeoutMs } = this.options;
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(250 * 2 ** attempt, 8_000);
      let response: Response;
      try {
        // A POST retried after a timeout is safe: it carries the same Idempotency-Key.
        response = await fetch(new Request(request.clone(), { signal: AbortSignal.timeout(timeoutMs) }));
      } catch (e) {
        if (attempt < maxRetries) {
          await sleep(backoff);
          continue;
        }
        throw new DteConnectionError(`${request.method} ${new URL(request.url).pathname}: ${(e as Error).message}`, e);
      }
      if ((response.status === 429 || response.status === 503) && attempt < maxRetries) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const wait = retryAfter === undefined ? backoff : retryAfter * 1000;
        if (wait <= maxRetryDelayMs) {
          await response.body?.cancel();
          await sleep(wait);
          continue;
        }
      }
      return response;
    }
  }
}

/**
 * A `multipart/form-data` body (the certificate upload, a logo, a received EnvioDTE): files as Blob
 * or bytes, other fields as text. It is a FormData typed to fit the operation's `body`, since the
 * document types a file field as a string; the client sends it as is, with its boundary.
 */
export function multipart(
  fields: Record<string, string | number | boolean | Blob | Uint8Array | undefined>,
  filenames: Record<string, string> = {},
): never {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value instanceof Blob || value instanceof Uint8Array) {
      const blob = value instanceof Blob ? value : new Blob([new Uint8Array(value)]);
      form.append(name, blob, filenames[name] ?? name);
    } else form.append(name, String(value));
  }
  return form as never;
}
