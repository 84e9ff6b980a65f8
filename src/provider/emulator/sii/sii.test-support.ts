import type { Db } from '../../../db/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { Ambiente } from '../../port.ts';
import { siiHosts, type SiiCallContext, type SiiCredentials, type SiiTokenKind, type SiiTokens } from '../../sii/context.ts';
import { createEmulatorCore } from '../emulator.ts';
import { callEmulator, type Harness } from '../http.test-support.ts';
import { schemaValidatorFrom } from '../schemas.ts';
import { buildEmulatorServer } from '../server.ts';
import { ephemeralSiiKey } from '../sii-key.ts';
import { registerBoletaRestRoutes } from './boleta-rest.ts';
import { registerClaimsRoutes } from './claims.ts';
import type { SiiTokenCheck } from './token-check.ts';

/**
 * The emulator listening on a real port with the SII face's boleta REST and registro routes, for
 * adapter-against-emulator tests over HTTP. Tokens: a book of the tokens this emulator "issued"
 * (holder RUT, kind, expiry on the emulator's clock) behind the routes' token check, and an
 * SiiTokens for the adapters that takes its tokens from that book, counting each one it fetches.
 * It stands in for the seed → signed seed → token exchange until that lands (helper A's seed.ts,
 * tokens.ts and the emulator's token tables).
 */
export interface TokenBook {
  check: SiiTokenCheck;
  issue(kind: SiiTokenKind, rut: string): string;
  /** Forgets every token on the emulator's side (as if each had expired). */
  expireAll(): void;
}

export function tokenBook(clock: Clock, lifetimeMs = 3_600_000): TokenBook {
  const tokens = new Map<string, { kind: SiiTokenKind; rut: string; expiresAt: number }>();
  let n = 0;
  return {
    check: async (kind, token) => {
      const t = tokens.get(token);
      return t && t.kind === kind && clock.now().getTime() < t.expiresAt ? { rut: t.rut } : undefined;
    },
    issue(kind, rut) {
      n += 1;
      const token = `EMU${kind.toUpperCase()}${String(n).padStart(6, '0')}`;
      tokens.set(token, { kind, rut, expiresAt: clock.now().getTime() + lifetimeMs });
      return token;
    },
    expireAll: () => tokens.clear(),
  };
}

/** An SiiTokens that caches one token per kind and fetches a new one from the book when told to forget it. */
export function bookTokens(book: TokenBook): SiiTokens & { invalidated: string[] } {
  const cache = new Map<SiiTokenKind, string>();
  const count: Record<SiiTokenKind, number> = { soap: 0, rest: 0 };
  const invalidated: string[] = [];
  return {
    invalidated,
    async get(kind: SiiTokenKind, c: SiiCredentials, _a: Ambiente) {
      let t = cache.get(kind);
      if (!t) {
        t = book.issue(kind, c.rutCertificado);
        count[kind] += 1;
        cache.set(kind, t);
      }
      return t;
    },
    invalidate(kind: SiiTokenKind, _c: SiiCredentials, _a: Ambiente, token: string) {
      invalidated.push(token);
      if (cache.get(kind) === token) cache.delete(kind);
    },
    fetched: () => ({ ...count }),
  };
}

export interface SiiEmulator {
  url: string;
  h: Harness;
  book: TokenBook;
  close(): Promise<void>;
  /** A call context for the adapters against this emulator; `fetchCalls` counts its HTTP attempts. */
  context(tokens: SiiTokens): SiiCallContext & { fetchCalls: () => number };
}

export async function startSiiEmulator(o: { db: Db; clock: Clock; processingDelayMs: number }): Promise<SiiEmulator> {
  const core = createEmulatorCore({
    db: o.db,
    clock: o.clock,
    siiKey: ephemeralSiiKey(),
    processingDelayMs: o.processingDelayMs,
    schemaValidator: schemaValidatorFrom(),
  });
  const book = tokenBook(o.clock);
  const app = await buildEmulatorServer(core);
  registerBoletaRestRoutes(app, core, book.check);
  registerClaimsRoutes(app, core, book.check);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const h: Harness = { core, app, call: (m, u, c) => callEmulator(app, m, u, c), close: () => app.close() };
  return {
    url,
    h,
    book,
    close: () => app.close(),
    context(tokens) {
      let calls = 0;
      const counted: typeof fetch = (input, init) => {
        calls += 1;
        return fetch(input, init);
      };
      return { hosts: siiHosts(url), fetch: counted, timeoutMs: 20_000, tokens, sleep: async () => {}, fetchCalls: () => calls };
    },
  };
}
