import type { Ambiente } from '../port.ts';
import { ProviderError } from '../port.ts';
import { SII_USER_AGENT, type SiiCallContext, type SiiService } from './context.ts';

/**
 * One HTTP attempt to an SII service: the gateway's User-Agent on every call (docs/sources.md
 * §1.3, §1.5), a timeout per attempt, the observer told of the outcome, the body read whole as
 * bytes (the SII writes ISO-8859-1). No retries here: each protocol file decides what a failure
 * proves (an upload may have been received; a query can simply be asked again by the caller's job).
 * Errors carry the service and operation, never the token or the certificate.
 */
export type SiiHttp = Pick<SiiCallContext, 'hosts' | 'fetch' | 'timeoutMs' | 'observer'>;

export interface SiiRequest {
  service: SiiService;
  ambiente: Ambiente;
  /** A metrics label: `CrSeed.getSeed`, `DTEUpload`, … */
  operation: string;
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer | string;
  token?: string;
}

export interface SiiResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function siiRequest(ctx: SiiHttp, r: SiiRequest): Promise<SiiResponse> {
  const url = `${ctx.hosts.origin(r.service, r.ambiente)}${r.path}`;
  const headers: Record<string, string> = { 'User-Agent': SII_USER_AGENT, ...(r.headers ?? {}) };
  if (r.token !== undefined) headers.Cookie = `TOKEN=${r.token}`;
  const signal = AbortSignal.timeout(ctx.timeoutMs);
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      method: r.method,
      headers,
      ...(r.body !== undefined ? { body: typeof r.body === 'string' ? r.body : new Uint8Array(r.body) } : {}),
      signal,
      redirect: 'manual',
    });
  } catch (e) {
    ctx.observer?.call(r.service, r.operation, null);
    const name = (e as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError' || signal.aborted) {
      throw new ProviderError('timeout', `The SII did not answer ${r.operation} within ${ctx.timeoutMs} ms.`);
    }
    throw new ProviderError('unavailable', `The SII could not be reached for ${r.operation}.`);
  }
  let body: Buffer;
  try {
    body = Buffer.from(await res.arrayBuffer());
  } catch {
    ctx.observer?.call(r.service, r.operation, null);
    throw new ProviderError('unavailable', `The SII's answer to ${r.operation} was cut off.`, res.status);
  }
  ctx.observer?.call(r.service, r.operation, res.status);
  if (body.length > MAX_BODY) throw new ProviderError('unavailable', `The SII's answer to ${r.operation} is too large.`, res.status);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

/** A short excerpt of an answer for an error message, with `secrets` (tokens) removed. */
export function excerpt(body: Buffer | string, secrets: readonly string[] = []): string {
  let t = (typeof body === 'string' ? body : body.toString('latin1')).replace(/\s+/g, ' ').trim();
  for (const s of secrets) if (s) t = t.split(s).join('***');
  return t.length > 300 ? `${t.slice(0, 300)}…` : t;
}

/** The text of the first `<name>` element (any prefix), entities decoded; undefined when absent. */
export function tagText(xml: string, name: string): string | undefined {
  const m = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}\\s*>`).exec(xml);
  if (m) return decodeXml(m[1]!).trim();
  if (new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?/>`).test(xml)) return '';
  return undefined;
}

export function decodeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (all, e: string) => {
    switch (e) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default: {
        const n = e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(n) ? String.fromCodePoint(n) : all;
      }
    }
  });
}

export const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
