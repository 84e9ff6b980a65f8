/**
 * The database seam. Both backends (PGlite, PostgreSQL) speak the same SQL dialect; this interface
 * is all the rest of the code sees. Store functions take a `Sql` (a transaction or the pool) and
 * never open a transaction of their own inside someone else's.
 *
 * Invariant: inside `transaction(fn)`, use only the `tx` handed to `fn`. On PGlite there is one
 * connection and the transaction holds it, so a query on the outer `Db` from inside `fn` would
 * wait forever.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Sql {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * PostgreSQL only (PGlite has one process, which tells itself directly): LISTEN on `channels`
   * over a connection of its own, named `name` (its application_name, so other processes can see
   * who listens in pg_stat_activity). `onState(true)` once listening; `onState(false)` when that
   * connection is lost, after which notifications may have been missed until the next
   * `onState(true)` (it reconnects by itself). `notify` sends on that connection (dropped when it
   * is down). Closed with the Db.
   */
  listen?(opts: ListenOptions): { notify(channel: string, payload: string): void };
  /**
   * PGlite only (one process owns the database, so its own commits are every change there is):
   * LISTEN on `channels` in the database itself; `onMessage` runs for each notification a commit
   * sends, before that commit's promise resolves (PGlite hands notifications to its listeners while
   * it reads the statement's result). `onState(true)` once listening. Process-local caches use it
   * to stay coherent without the cross-process part (src/lib/cross-process-invalidation.ts).
   */
  listenLocally?(opts: Omit<ListenOptions, 'name'>): void;
}

export interface ListenOptions {
  channels: readonly string[];
  name: string;
  onMessage(channel: string, payload: string): void;
  onState(listening: boolean): void;
}
