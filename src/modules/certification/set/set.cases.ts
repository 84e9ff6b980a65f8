import { documentTypeCode } from './document-types.ts';
import { SetParseError } from './set.errors.ts';
import { applyExportField, emptyExport, exportKey, indTrasladoOf, parseNumber, parsePercent, tipoDespachoOf } from './set.fields.ts';
import { cellsOf } from './set.text.ts';
import type { SectionKind, SetCase, SetItem } from './set.types.ts';

/** The column titles an item table may have; each value of a row goes to the column of its place. */
const COLUMNS = [
  'CANTIDAD',
  'PRECIO UNITARIO',
  'VALOR UNITARIO',
  'UNIDAD MEDIDA',
  'DESCUENTO ITEM',
  'RECARGO ITEM',
  'VALOR LINEA',
  'TOTAL LINEA',
] as const;
type Column = (typeof COLUMNS)[number];
const isColumn = (c: string): c is Column => (COLUMNS as readonly string[]).includes(c);

const SEPARATOR = /^-{20,}$/;
const UNDERLINE = /^=+$/;
const CASE_HEADING = /^CASO\s+(\S+)$/;
const GLOBAL = /^(DESCUENTO|RECARGO) GLOBAL ITEM(?:E)?S (AFECTOS|EXENTOS)\s+(-?\d+(?:[.,]\d+)?)\s*(%?)$/;
const LINE_ADJUST = /^(DESCUENTO|RECARGO) LINEA\s*#\s*(\d+)\s*:\s*(\S+)$/;
const ALL_LINES_ADJUST = /^(?:%\s*(\d+(?:[.,]\d+)?)|(\d+(?:[.,]\d+)?)\s*%)\s+(RECARGO|DESCUENTO) EN LA LINEA/;
const GLOBAL_OVER_CLAUSE = /\((RECARGOS|DESCUENTOS) GLOBALES\)\s*:\s*(\d+(?:[.,]\d+)?)\s*%/;
const KEY_VALUE = /^([^:\t]+?):\s*(.+)$/;

interface Table {
  kind: 'items' | 'charges';
  columns: Column[];
}

interface Open {
  c: SetCase;
  reason: { text: string; line: number } | null;
}

/** Parses the lines of a section that holds cases (`CASO n-k` blocks). */
export function parseCaseSection(
  kind: SectionKind,
  attentionNumber: string,
  lines: readonly string[],
  first: number,
  end: number,
): { cases: SetCase[]; notes: string[] } {
  const cases: SetCase[] = [];
  const notes: string[] = [];
  let open: Open | null = null;
  let table: Table | null = null;
  let closedBySeparator = false;

  const close = () => {
    if (!open) return;
    const { c, reason } = open;
    if (c.documentType.code === 0)
      throw new SetParseError('case_without_document', c.line, `a line 'DOCUMENTO<tab>type name' in CASO ${c.id}`);
    if (reason) {
      if (c.reference) c.reference.reason = reason.text;
      else c.observations.push(`RAZON REFERENCIA ${reason.text}`);
    }
    cases.push(c);
    open = null;
    table = null;
  };

  for (let i = first; i < end; i++) {
    const raw = lines[i]!;
    const line = i + 1;
    const t = raw.trim();
    if (SEPARATOR.test(t)) {
      close();
      closedBySeparator = true;
      continue;
    }
    const heading = CASE_HEADING.exec(t);
    if (heading) {
      close();
      closedBySeparator = false;
      const m = /^(\d+)-(\d+)$/.exec(heading[1]!);
      if (!m || m[1] !== attentionNumber)
        throw new SetParseError('bad_case_heading', line, `'CASO ${attentionNumber}-<number>' (the section's attention number)`, t);
      open = { c: newCase(kind, m[0], Number(m[2]), line), reason: null };
      continue;
    }
    if (!open || closedBySeparator) {
      if (t) notes.push(t);
      continue;
    }
    const c = (open as Open).c;
    if (!t) {
      table = null;
      continue;
    }
    if (UNDERLINE.test(t)) continue;
    const cells = cellsOf(raw);
    const head = cells[0]!;
    if (head === 'DOCUMENTO') {
      const name = cells.slice(1).join(' ');
      const code = documentTypeCode(name);
      if (code === undefined) throw new SetParseError('unknown_document_type', line, 'a document type name the SII uses', name);
      c.documentType = { name, code };
      continue;
    }
    if (head === 'REFERENCIA') {
      const text = cells.slice(1).join(' ').replace(/\s+/g, ' ');
      const m = /^(.+?) CORRESPONDIENTE A CASO (\S+)$/.exec(text);
      if (!m) throw new SetParseError('bad_reference', line, "'REFERENCIA<tab><type name> CORRESPONDIENTE A CASO n-k'", text);
      c.reference = { line, documentName: m[1]!, caseId: m[2]!, tipoDte: 0, reason: null };
      continue;
    }
    if (head === 'RAZON REFERENCIA') {
      (open as Open).reason = { text: cells.slice(1).join(' '), line };
      continue;
    }
    if (/^(MOTIVO|TRASLADO POR)\s*:/.test(t)) {
      const [, key, value = ''] = /^(MOTIVO|TRASLADO POR)\s*:\s*(.*)$/.exec(t)!;
      const v = value.trim();
      c.traslado ??= { motivo: '', indTraslado: null, por: null, tipoDespacho: null };
      if (key === 'MOTIVO') Object.assign(c.traslado, { motivo: v, indTraslado: indTrasladoOf(v) });
      else Object.assign(c.traslado, { por: v, tipoDespacho: tipoDespachoOf(v) });
      continue;
    }
    if ((head === 'ITEM' || head === 'COMISIONES Y OTROS CARGOS') && cells.length > 1 && cells.slice(1).every(isColumn)) {
      table = { kind: head === 'ITEM' ? 'items' : 'charges', columns: cells.slice(1) as Column[] };
      continue;
    }
    const flat = t.replace(/\t+/g, ' ').replace(/ {2,}/g, ' ');
    const g = GLOBAL.exec(flat);
    if (g) {
      c.globalAdjustments.push({
        line,
        tipo: g[1] === 'DESCUENTO' ? 'descuento' : 'recargo',
        valor: parseNumber(g[3]!, line, 'the global adjustment'),
        unidad: g[4] === '%' ? '%' : '$',
        exento: g[2] === 'EXENTOS',
        text: t,
      });
      continue;
    }
    const la = LINE_ADJUST.exec(flat);
    if (la) {
      const item = c.items[Number(la[2]) - 1];
      if (!item) throw new SetParseError('bad_item_row', line, `item ${la[2]} to exist in CASO ${c.id}`, t);
      const pct = parsePercent(la[3]!, line, 'the line adjustment');
      if (la[1] === 'DESCUENTO') item.descuentoPct = pct;
      else item.recargoPct = pct;
      c.observations.push(t);
      continue;
    }
    const all = ALL_LINES_ADJUST.exec(flat);
    if (all) {
      const pct = parseNumber(all[1] ?? all[2]!, line, 'the line adjustment');
      for (const item of c.items) {
        if (all[3] === 'RECARGO') item.recargoPct = pct;
        else item.descuentoPct = pct;
      }
      c.observations.push(t);
      continue;
    }
    const overClause = GLOBAL_OVER_CLAUSE.exec(flat);
    if (overClause) {
      c.globalAdjustments.push({
        line,
        tipo: overClause[1] === 'RECARGOS' ? 'recargo' : 'descuento',
        valor: parseNumber(overClause[2]!, line, 'the global adjustment'),
        unidad: '%',
        exento: true,
        text: t,
      });
      continue;
    }
    const kv = KEY_VALUE.exec(t);
    const key = kv ? exportKey(kv[1]!) : undefined;
    if (kv && key) {
      c.exportacion ??= emptyExport();
      applyExportField(c.exportacion, key, kv[2]!.trim(), line);
      continue;
    }
    if (table) {
      const item = itemRow(cells, table.columns, line);
      (table.kind === 'items' ? c.items : c.charges).push(item);
      continue;
    }
    c.observations.push(t);
  }
  close();
  return { cases, notes };
}

function newCase(section: SectionKind, id: string, number: number, line: number): SetCase {
  return {
    id,
    section,
    number,
    line,
    documentType: { name: '', code: 0 },
    reference: null,
    traslado: null,
    items: [],
    charges: [],
    globalAdjustments: [],
    exportacion: null,
    observations: [],
  };
}

/** One row of an item table: the name, then one value per column, left to right. */
function itemRow(cells: string[], columns: Column[], line: number): SetItem {
  const [name, ...values] = cells;
  if (!name || values.length === 0 || values.length > columns.length)
    throw new SetParseError('bad_item_row', line, `an item name followed by ${columns.join(', ')}`, cells.join(' | '));
  const item: SetItem = {
    line,
    name,
    exento: /\bEXENTO\b/i.test(name),
    cantidad: null,
    unidad: null,
    precioUnitario: null,
    montoLinea: null,
    descuentoPct: null,
    recargoPct: null,
  };
  values.forEach((v, j) => {
    const col = columns[j]!;
    if (col === 'CANTIDAD') item.cantidad = parseNumber(v, line, col);
    else if (col === 'PRECIO UNITARIO' || col === 'VALOR UNITARIO') item.precioUnitario = parseNumber(v, line, col);
    else if (col === 'UNIDAD MEDIDA') item.unidad = v;
    else if (col === 'DESCUENTO ITEM') item.descuentoPct = parsePercent(v, line, col);
    else if (col === 'RECARGO ITEM') item.recargoPct = parsePercent(v, line, col);
    else item.montoLinea = parseNumber(v, line, col);
  });
  return item;
}
