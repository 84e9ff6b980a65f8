import pg from 'pg';
import type { Db, QueryResult, Sql } from './types.ts';

// int8 (counts, sums) as JS numbers, like PGlite does; our values stay far below 2^53.
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

const wrap = (c: { query: pg.Pool['query'] }): Sql => ({
  async query<T>(text: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const r = await c.query(text, params as unknown[]);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  },
});

export interface PostgresOptions {
  /** Schema to put first on the search_path (tests isolate themselves in a schema each). */
  schema?: string;
  max?: number;
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
  const base = wrap(pool);
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
        const result = await fn(wrap(client));
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
