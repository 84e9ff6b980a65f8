import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';

/**
 * How a statement reaches the embedded PostgreSQL: one call into its WebAssembly per statement
 * instead of PGlite's six (docs/performance.md, "Fourth round: PGlite creation").
 *
 * PGlite's own `query()` sends Parse, Describe (statement), Bind, Describe (portal), Execute and
 * Sync as six separate calls into PostgreSQL's main loop, each with its own setup, and parses and
 * plans the text again every time (unnamed statements). Here a text with parameters is prepared
 * once under a name (Parse + Describe, which also tells the parameters' types, so each value is
 * serialised as PGlite would), and every execution is Bind + Describe + Execute + Sync in one
 * buffer and one call; a text without parameters is Parse + Bind + Describe + Execute + Sync in one
 * call, unnamed. Values and results go through PGlite's own serialisers and parsers, so rows come
 * back exactly as `query()` returns them.
 *
 * Bounds and escapes (as the PostgreSQL driver's prepared statements, src/db/postgres.ts): only
 * texts with parameters are named, the service never puts values into SQL text, so the number of
 * texts is bounded by the code; at most MAX_NAMED, later texts run unnamed. A named text PostgreSQL
 * can no longer run as prepared (0A000 "cached plan must not change result type" after its table
 * changed) runs unnamed from then on; when a statement is gone (26000: the session's statements
 * were dropped, as `DISCARD ALL` does) every name is forgotten and prepared again on next use.
 * Either way, outside a transaction the same call is run again at once; inside one that
 * transaction fails, once. Whoever runs `DISCARD ALL` on the database calls
 * `forgetPreparedStatements` (the tests' database pool does).
 *
 * The caller holds PGlite's query lock (`runExclusive`); errors are PGlite's DatabaseError (with
 * its `code`), without the query's parameters attached to it.
 */
const MAX_NAMED = 2000;
const BYTEA = 17;
/** The names this runner gives its statements begin with this. */
export const STATEMENT_NAME_PREFIX = 'dte_s';
const codeOf = (e: unknown): string | undefined => (e as { code?: string }).code;

const forgetters = new WeakMap<PGlite, () => void>();

/** After `DISCARD ALL` (or `DEALLOCATE ALL`) on `pg`: its statements are prepared again on next use. */
export function forgetPreparedStatements(pg: PGlite): void {
  forgetters.get(pg)?.();
}

const concat = (parts: Uint8Array[]): Uint8Array => {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
};

export function createStatementRunner(pg: PGlite) {
  const ser = protocol.serialize;
  /** text → its name and parameter types, once prepared. */
  const named = new Map<string, { name: string; types: readonly number[] }>();
  /** Texts that run unnamed from now on (beyond MAX_NAMED, or no longer runnable as prepared). */
  const unnamed = new Set<string>();
  let seq = 0;
  forgetters.set(pg, () => named.clear());

  const exec = async (message: Uint8Array): Promise<Results> => {
    const { messages } = await pg.execProtocol(message, { syncToFs: false });
    return parse.parseResults(messages, pg.parsers)[0]!;
  };

  // A bytea parameter given as bytes goes in binary format (the Bind message's format code 1),
  // as they are: PGlite's serialiser would write them as hex text for PostgreSQL to decode.
  const serialise = (params: readonly unknown[], types: readonly number[]): (string | Uint8Array | null)[] =>
    params.map((v, i) => {
      if (v === null || v === undefined) return null;
      if (types[i] === BYTEA && v instanceof Uint8Array) return v;
      const s = pg.serializers[types[i]!];
      return s ? (s(v) as string) : String(v);
    });

  const prepare = async (text: string): Promise<{ name: string; types: readonly number[] }> => {
    const name = `${STATEMENT_NAME_PREFIX}${++seq}`;
    const { messages } = await pg.execProtocol(concat([ser.parse({ name, text }), ser.describe({ type: 'S', name }), ser.sync()]), {
      syncToFs: false,
    });
    const desc = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const p = { name, types: desc?.dataTypeIDs ?? [] };
    named.set(text, p);
    return p;
  };

  const runUnnamed = async (text: string, params: readonly unknown[]): Promise<Results> => {
    if (params.length === 0)
      return exec(concat([ser.parse({ text }), ser.bind({ values: [] }), ser.describe({ type: 'P' }), ser.execute({}), ser.sync()]));
    const { messages } = await pg.execProtocol(concat([ser.parse({ text }), ser.describe({ type: 'S' }), ser.sync()]), { syncToFs: false });
    const desc = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const values = serialise(params, desc?.dataTypeIDs ?? []);
    return exec(concat([ser.bind({ values }), ser.describe({ type: 'P' }), ser.execute({}), ser.sync()]));
  };

  /** Runs one statement; the caller holds PGlite's query lock. */
  const run = async (text: string, params: readonly unknown[], inTransaction: boolean, retried = false): Promise<Results> => {
    if (params.length === 0 || unnamed.has(text)) return runUnnamed(text, params);
    let p = named.get(text);
    if (!p) {
      if (named.size >= MAX_NAMED) {
        unnamed.add(text);
        return runUnnamed(text, params);
      }
      p = await prepare(text);
    }
    try {
      return await exec(
        concat([
          ser.bind({ statement: p.name, values: serialise(params, p.types) }),
          ser.describe({ type: 'P' }),
          ser.execute({}),
          ser.sync(),
        ]),
      );
    } catch (e) {
      const code = codeOf(e);
      if (code === '26000') named.clear();
      else if (code === '0A000') {
        named.delete(text);
        unnamed.add(text);
      } else throw e;
      if (inTransaction || retried) throw e;
      return run(text, params, false, true);
    }
  };
  return run;
}
