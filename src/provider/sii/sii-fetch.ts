import { ProviderError, type Ambiente } from '../port.ts';
import type { SiiCallContext, SiiCredentials, SiiService, SiiTokenKind } from './context.ts';

/**
 * One HTTP attempt to an SII service: the timeout per attempt, the observer told of it, and the
 * failures that are not an answer mapped to the port's kinds (no answer in time → timeout; no
 * connection → unavailable). A body comes back whatever the status: each protocol reads its own.
 * Messages never carry the request (its Cookie holds the token).
 */
export interface SiiAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export async function siiFetch(
  ctx: SiiCallContext,
  service: SiiService,
  operation: string,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer },
): Promise<SiiAnswer> {
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body ? { body: new Uint8Array(init.body) } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(ctx.timeoutMs),
    });
  } catch (e) {
    ctx.observer?.call(service, operation, null);
    const name = (e as { name?: string })?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('timeout', `The SII (${operation}) did not answer within ${ctx.timeoutMs} ms.`);
    }
    throw new ProviderError('unavailable', `The SII (${operation}) could not be reached.`);
  }
  ctx.observer?.call(service, operation, res.status);
  let body: Buffer;
  try {
    body = Buffer.from(await res.arrayBuffer());
  } catch {
    throw new ProviderError('unavailable', `The SII's answer to ${operation} was cut off.`, res.status);
  }
  if (body.length > MAX_ANSWER_BYTES) throw new ProviderError('unavailable', `The SII's answer to ${operation} is too large.`, res.status);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

/** A short, printable excerpt of an answer for an error message (the SII's own words, never ours to trust). */
export const excerpt = (body: Buffer, max = 200): string => {
  const t = body.toString('utf8').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/**
 * A call made with a token of `kind`, given again once with a fresh token when the SII refuses the
 * first (an expired or forgotten token: SII-SERVICES.md §1.5, Odoo drops the token and retries on
 * 401). `call` answers undefined for a refused token; a second refusal comes back as undefined for
 * the caller to word.
 */
export async function withToken<T>(
  ctx: SiiCallContext,
  kind: SiiTokenKind,
  creds: SiiCredentials,
  ambiente: Ambiente,
  call: (token: string) => Promise<T | undefined>,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const token = await ctx.tokens.get(kind, creds, ambiente);
    const out = await call(token);
    if (out !== undefined) return out;
    ctx.tokens.invalidate(kind, creds, ambiente, token);
  }
  return undefined;
}
