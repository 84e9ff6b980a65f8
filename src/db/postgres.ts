import pg from 'pg';
import type { Db, QueryResult, Sql } from './types.ts';

// int8 (counts, sums) as JS numbers, like PGlite does; our values stay far below 2^53.
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * Named prepared statements (docs/performance.md "Prepared statements"): a statement the process
 * runs again is parsed and analysed once per connection instead of on every call, which took
 * about a third of PostgreSQL's CPU per document created. Names are per pool; the `pg` client
 * remembers which ones each connection has prepared. Only texts with parameters are named (the
 * service never interpolates values into SQL text, so their number is bounded by the code), and
 * at most MAX_PREPARED texts per pool, in case a future caller does.
 */
const MAX_PREPARED = 2000;

/**
 * A named statement PostgreSQL cannot run as prepared: 0A000 when its result columns changed under
 * it (a column added by a newer version's migration while this process runs; "cached plan must
 * not change result type", in the server's language, so the code alone is matched), 26000 when
 * the statement is gone from the connection (`pg` closes it when converting a parameter fails; a
 * pooler may hand over another connection). Such a text runs unnamed from then on: forgetting one
 * wrongly costs only speed. Outside a transaction the statement is run again at once, unnamed
 * (PostgreSQL refused it before running it); inside one the transaction is already aborted, so
 * that statement fails, once.
 */
const preparedFailed = (e: unknown): boolean => ['0A000', '26000'].includes((e as { code?: string }).code ?? '');

interface Namer {
  nameOf(text: string): string | undefined;
  forget(text: string): void;
}

function createNamer(enabled: boolean): Namer {
  const names = new Map<string, string>();
  const unnamed = new Set<string>();
  let next = 0;
  return {
    nameOf(text) {
      if (!enabled || unnamed.has(text)) return undefined;
      let n = names.get(text);
      if (n === undefined && names.size < MAX_PREPARED) names.set(text, (n = `dte_${(next++).toString(36)}`));
      return n;
    },
    forget(text) {
      names.delete(text);
      unnamed.add(text);
    },
  };
}

const wrap = (c: { query: pg.Pool['query'] }, namer: Namer, { inTransaction }: { inTransaction: boolean }): Sql => ({
  async query<T>(text: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const name = params.length > 0 ? namer.nameOf(text) : undefined;
    let r: pg.QueryResult;
    try {
      r = name ? await c.query({ name, text, values: params as unknown[] }) : await c.query(text, params as unknown[]);
    } catch (e) {
      if (!name || !preparedFailed(e)) throw e;
      namer.forget(text);
      if (inTransaction) throw e;
      r = await c.query(text, params as unknown[]);
    }
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  },
});

export interface PostgresOptions {
  /** Schema to put first on the search_path (tests isolate themselves in a schema each). */
  schema?: string;
  max?: number;
  /** Named prepared statements (default on); off for a pooler in transaction mode that can't keep them (PgBouncer without `max_prepared_statements`). */
  preparedStatements?: boolean;
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    types,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle client that loses its server (restart, failover) emits 'error'; without a listener
  // that would crash the process. The next query gets a fresh connection.
  pool.on('error', () => {});
  await pool.query('select 1'); // fail fast with a clear cause when the server is unreachable
  const namer = createNamer(opts.preparedStatements ?? true);
  const base = wrap(pool, namer, { inTransaction: false });
  const listeners = new Set<pg.Client>();
  let closed = false;
  return {
    kind: 'postgres',
    query: base.query,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A checked-out client whose server goes away (restart, failover) emits 'error'; the pool only
      // listens on idle clients, so without this listener the process would crash. The query in
      // flight rejects on its own, and a client whose ROLLBACK fails is destroyed, not reused.
      const onError = () => {};
      client.on('error', onError);
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client, namer, { inTransaction: true }));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        broken = await client.query('ROLLBACK').then(
          () => false,
          () => true,
        );
        throw e;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    listen({ channels, name, onMessage, onState }) {
      for (const c of channels) if (!/^[a-z_][a-z0-9_]{0,62}$/.test(c)) throw new Error(`not a channel name: ${c}`);
      let current: pg.Client | undefined;
      const connect = async () => {
        if (closed) return;
        const client = new pg.Client({
          connectionString: url,
          keepAlive: true,
          application_name: name,
          ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
        });
        let lost = false;
        const onLost = () => {
          if (lost) return;
          lost = true;
          listeners.delete(client);
          if (current === client) current = undefined;
          onState(false);
          client.end().catch(() => {});
          if (!closed) setTimeout(() => void connect(), 1000).unref();
        };
        client.on('error', onLost);
        client.on('end', onLost);
        client.on('notification', (m) => {
          if (channels.includes(m.channel)) onMessage(m.channel, m.payload ?? '');
        });
        listeners.add(client);
        try {
          await client.connect();
          for (const c of channels) await client.query(`listen ${c}`);
          if (lost || closed) return;
          current = client;
          onState(true);
        } catch {
          onLost();
        }
      };
      void connect();
      return {
        notify(channel, payload) {
          current?.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {});
        },
      };
    },
    async close() {
      closed = true;
      await Promise.all([...listeners].map((c) => c.end().catch(() => {})));
      await pool.end();
    },
  };
}
