import { errors } from '../errors.ts';

/**
 * Iterator pagination (docs/design.md §2): lists are ordered newest first by (created_at, id); the
 * opaque iterator encodes the last row's position. Stores ask for limit + 1 rows to know `done`.
 */
export interface Page<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

export interface Cursor {
  createdAt: string;
  id: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

export function encodeIterator(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.id])).toString('base64url');
}

export function decodeIterator(iterator: string | undefined): Cursor | undefined {
  if (iterator === undefined || iterator === '') return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(iterator, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') {
      if (!Number.isNaN(Date.parse(v[0])) && /^[0-9a-zA-Z_-]{1,64}$/.test(v[1])) return { createdAt: v[0], id: v[1] };
    }
  } catch {
    /* fall through */
  }
  throw errors.invalid('invalid_iterator', 'The iterator is not one this API returned. Pass the iterator of the previous page unchanged.', {
    param: 'iterator',
  });
}

/** Turns limit + 1 fetched rows into a page. `position` gives each row's cursor. */
export function toPage<R, T>(rows: R[], limit: number, position: (r: R) => Cursor, map: (r: R) => T): Page<T> {
  const done = rows.length <= limit;
  const kept = done ? rows : rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { data: kept.map(map), iterator: !done && last ? encodeIterator(position(last)) : null, done };
}

/** SQL fragment for "older than the cursor" in newest-first order; `n` is the next param index. */
export function cursorCondition(cursor: Cursor | undefined, n: number, table = ''): { sql: string; params: unknown[] } {
  if (!cursor) return { sql: 'true', params: [] };
  const p = table ? `${table}.` : '';
  return { sql: `(${p}created_at, ${p}id::text) < ($${n}::timestamptz, $${n + 1})`, params: [cursor.createdAt, cursor.id] };
}
