import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Aduana's code tables (README.md beside this file), looked up by the names the SII's test
 * sets write ("ACRED", "A FIRME", "CONTENEDOR REFRIGERADO"). Read once, on first use.
 */
export const ADUANA_TABLES = [
  'clausulas_venta',
  'formas_pago',
  'modalidades_venta',
  'moneda',
  'paises',
  'puertos',
  'tipos_bulto',
  'transportes',
  'unidades',
] as const;
export type AduanaTable = (typeof ADUANA_TABLES)[number];

const DIR = path.dirname(fileURLToPath(import.meta.url));
const loaded = new Map<AduanaTable, Map<string, number>>();

/** Upper case without accents or repeated spaces: how the sets and the tables can both be compared. */
export function comparable(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** One CSV row into cells: fields may be double-quoted (with commas inside). */
function cells(line: string): string[] {
  const out: string[] = [];
  const re = /("([^"]*(?:""[^"]*)*)"|[^,]*)(,|$)/g;
  for (let m = re.exec(line); m && m.index < line.length; m = re.exec(line)) {
    out.push(m[2] !== undefined ? m[2].replace(/""/g, '"') : (m[1] ?? ''));
    if (m[3] === '') break;
  }
  return out;
}

function table(name: AduanaTable): Map<string, number> {
  let t = loaded.get(name);
  if (!t) {
    t = new Map();
    const rows = readFileSync(path.join(DIR, `${name}.csv`), 'utf8')
      .split(/\r?\n/)
      .slice(1);
    for (const row of rows) {
      if (!row.trim()) continue;
      const [code, label] = cells(row);
      const key = comparable(label ?? '');
      // The first row of a repeated name wins (paises.csv lists common countries first).
      if (key && !t.has(key)) t.set(key, Number(code));
    }
    loaded.set(name, t);
  }
  return t;
}

/**
 * Names the sets spell out where the table keeps the Aduana's short form. CONTENEDOR REFRIGERADO
 * is read as REEFER40 (76), the refrigerated container the copied table has; its 20-foot sibling
 * is not in it. Check against the official table if the SII objects (README.md).
 */
const SPELLED_OUT: Partial<Record<AduanaTable, Record<string, string>>> = {
  tipos_bulto: {
    'CONTENEDOR REFRIGERADO': 'REEFER40',
    'CONTENEDOR 20': 'CONT20',
    'CONTENEDOR 40': 'CONT40',
    'CONTENEDOR NO ESPECIFICADO': 'CONTNOESP',
  },
};

/** The code of `name` in an Aduana table, or undefined when the table has no such name. */
export function aduanaCode(tableName: AduanaTable, name: string): number | undefined {
  const key = comparable(name);
  return table(tableName).get(key) ?? table(tableName).get(SPELLED_OUT[tableName]?.[key] ?? '');
}
