import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db/types.ts';

/**
 * The canary scans' tools: where a secret could hide (every table as text, every file of a data
 * directory) and the encodings it could hide in.
 */
const ENCODINGS = ['raw', 'base64', 'base64url', 'hex', 'HEX'] as const;

export const forms = (v: Buffer): Buffer[] => [
  v,
  Buffer.from(v.toString('base64')),
  Buffer.from(v.toString('base64url')),
  Buffer.from(v.toString('hex')),
  Buffer.from(v.toString('hex').toUpperCase()),
];

/** Every `name (encoding) in where` for which a needle appears in the haystack. */
export function findings(haystack: Buffer, needles: Record<string, Buffer>, where: string): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(needles))
    for (const [i, f] of forms(value).entries()) if (haystack.includes(f)) out.push(`${name} (${ENCODINGS[i]}) in ${where}`);
  return out;
}

/** Every column of every table, as text (bytea reads as \x… hex). */
export async function dumpTables(db: Db): Promise<Buffer> {
  const cols = await db.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
     where table_schema = current_schema() order by table_name, ordinal_position`,
  );
  const chunks: string[] = [];
  for (const c of cols.rows) {
    const r = await db.query<{ v: string | null }>(`select "${c.column_name}"::text as v from "${c.table_name}"`);
    for (const row of r.rows) if (row.v !== null) chunks.push(`${c.table_name}.${c.column_name}=${row.v}`);
  }
  return Buffer.from(chunks.join('\n'));
}

export const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
