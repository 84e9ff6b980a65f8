import type { TestApp } from './app.ts';

/**
 * Fault injection for Idempotency-Key tests: the statement that stores a response after the change
 * committed (src/http/plugins/idempotency.ts, onSend) fails once while `run` runs; returns how
 * many times it failed.
 */
export async function failResponseWriteOnce<T>(t: Pick<TestApp, 'ctx'>, run: () => Promise<T>): Promise<{ failed: number; result: T }> {
  const db = t.ctx.db as { query: (text: string, params?: readonly unknown[]) => Promise<unknown> };
  const query = db.query;
  let failed = 0;
  db.query = async (text, params) => {
    if (/update idempotency_keys set status_code/.test(text) && failed === 0) {
      failed++;
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    }
    return query.call(db, text, params);
  };
  try {
    const result = await run();
    return { failed, result };
  } finally {
    db.query = query;
  }
}
