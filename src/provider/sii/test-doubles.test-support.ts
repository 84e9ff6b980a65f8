import type { Ambiente } from '../port.ts';
import { siiHosts, type SiiCallContext, type SiiCredentials, type SiiTokenKind, type SiiTokens } from './context.ts';

/**
 * Test doubles for the SII adapters' unit tests: a token source that hands out numbered tokens
 * and records invalidations, and a fetch that answers from a script and records each request.
 */
export function stubTokens(): SiiTokens & { invalidated: string[]; issued: string[] } {
  const current = new Map<SiiTokenKind, string>();
  const count: Record<SiiTokenKind, number> = { soap: 0, rest: 0 };
  const invalidated: string[] = [];
  const issued: string[] = [];
  return {
    invalidated,
    issued,
    async get(kind: SiiTokenKind, _c: SiiCredentials, _a: Ambiente) {
      let t = current.get(kind);
      if (!t) {
        count[kind] += 1;
        t = `${kind}-token-${count[kind]}`;
        issued.push(t);
        current.set(kind, t);
      }
      return t;
    },
    invalidate(kind: SiiTokenKind, _c: SiiCredentials, _a: Ambiente, token: string) {
      invalidated.push(token);
      if (current.get(kind) === token) current.delete(kind);
    },
    fetched: () => ({ ...count }),
  };
}

export interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type Scripted = { status: number; body: string | Buffer; type?: string } | Error;

export function scriptedFetch(answers: Scripted[]): { fetch: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const b = init?.body;
    seen.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers,
      body: b instanceof Uint8Array ? Buffer.from(b) : typeof b === 'string' ? Buffer.from(b) : Buffer.alloc(0),
    });
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    const body = typeof next.body === 'string' ? Buffer.from(next.body, 'utf8') : next.body;
    return new Response(new Uint8Array(body), { status: next.status, headers: { 'content-type': next.type ?? 'application/json' } });
  };
  return { fetch: f as typeof fetch, seen };
}

export function testContext(f: typeof fetch, tokens: SiiTokens, baseUrl?: string): SiiCallContext {
  return { hosts: siiHosts(baseUrl), fetch: f, timeoutMs: 5000, tokens, sleep: async () => {} };
}

export const CREDS: SiiCredentials = { pfx: Buffer.from('not-a-real-pfx'), pfxPassword: 'x', rutCertificado: '12345678-5' };
