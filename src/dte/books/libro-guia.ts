import { DteEngineError } from '../errors.ts';
import { checkSiiDate } from '../dates.ts';
import { el } from '../xml-escape.ts';
import { toSiiRut } from '../rut.ts';
import { bookText, caratula, checkHeader, writeSignedBook } from './book-sign.ts';
import type { BookHeader, BuiltBook } from './book-types.ts';

/**
 * LibroGuia (LibroGuia_v10.xsd; "Formato Libro de Guías de Despacho Electrónicas" v1.0,
 * docs/certification.md "Books"): a special book (the only TipoLibro the schema allows) sent whole, with its
 * ResumenPeriodo and one Detalle per guía.
 *  - TpoOper: what the guía's transfer was (manual §2 d) field 3; 1 = a sale), the DTE's
 *    IndTraslado where its meaning is the same (1–7);
 *  - an invoiced guía names its factura: TpoDocRef, FolioDocRef, FchDocRef (fields 12–14);
 *  - a guía cancelled after it was sent is Anulado 2 and keeps its data; a folio cancelled before
 *    sending is Anulado 1 and needs nothing else (field 2);
 *  - ResumenPeriodo: TotFolAnulado (Anulado 1), TotGuiaAnulada (Anulado 2), TotGuiaVenta and
 *    TotMntGuiaVta (neither 1 nor 2, TpoOper 1), and per other transfer (TpoOper 2–7) its count
 *    and amount (TotTraslado).
 */
export interface GuiaEntry {
  folio: number;
  /** 'folio': cancelled before sending (1); 'guia': cancelled after it was sent (2). */
  anulado?: 'folio' | 'guia' | undefined;
  /** IndTraslado / TpoOper, 1..7. */
  tpoOper?: number | undefined;
  fecha?: string | undefined;
  rut?: string | undefined;
  razonSocial?: string | undefined;
  neto?: number | undefined;
  tasaIva?: number | undefined;
  iva?: number | undefined;
  total?: number | undefined;
  factura?: { tipoDoc: number; folio: number; fecha: string } | undefined;
}

export interface LibroGuiaTotals {
  foliosAnulados: number;
  guiasAnuladas: number;
  guiasVenta: number;
  montoGuiasVenta: number;
  traslados: { tpoTraslado: number; cantidad: number; monto: number }[];
}

export interface LibroGuiaInput extends BookHeader {
  entries: readonly GuiaEntry[];
}

/** TpoOper 1: the guía's transfer is a sale (manual §2 d) field 3). */
export const TPO_OPER_VENTA = 1;

const amount = (v: number | undefined, p: string): number | undefined => {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || v < 0) throw new DteEngineError('invalid_field', `${p} must be a whole number of pesos`, p);
  return v;
};

export function guiaTotals(entries: readonly GuiaEntry[]): LibroGuiaTotals {
  const t: LibroGuiaTotals = { foliosAnulados: 0, guiasAnuladas: 0, guiasVenta: 0, montoGuiasVenta: 0, traslados: [] };
  for (const g of entries) {
    if (g.anulado === 'folio') t.foliosAnulados++;
    else if (g.anulado === 'guia') t.guiasAnuladas++;
    else if (g.tpoOper === TPO_OPER_VENTA) {
      t.guiasVenta++;
      t.montoGuiasVenta += g.total ?? 0;
    } else if (g.tpoOper !== undefined) {
      let x = t.traslados.find((y) => y.tpoTraslado === g.tpoOper);
      if (!x) t.traslados.push((x = { tpoTraslado: g.tpoOper, cantidad: 0, monto: 0 }));
      x.cantidad++;
      x.monto += g.total ?? 0;
    }
  }
  t.traslados.sort((a, b) => a.tpoTraslado - b.tpoTraslado);
  return t;
}

function detalle(g: GuiaEntry, i: number): string {
  const p = `entries[${i}]`;
  if (!Number.isSafeInteger(g.folio) || g.folio < 1 || g.folio > 9_999_999_999)
    throw new DteEngineError('invalid_field', 'folio must be a positive integer of up to 10 digits', `${p}.folio`);
  if (g.anulado === 'folio') return `<Detalle>${el('Folio', g.folio)}${el('Anulado', 1)}</Detalle>`;
  if (g.tpoOper === undefined || !Number.isSafeInteger(g.tpoOper) || g.tpoOper < 1 || g.tpoOper > 7)
    throw new DteEngineError('invalid_field', 'tpoOper must be 1..7 (the guía book has no code for exports, 8 and 9)', `${p}.tpoOper`);
  const venta = g.tpoOper === TPO_OPER_VENTA && g.anulado === undefined;
  if (venta && (!g.rut || g.total === undefined))
    throw new DteEngineError('required_field', 'A guía that is a sale needs the receptor RUT and the total', `${p}.rut`);
  const neto = amount(g.neto, `${p}.neto`);
  const iva = amount(g.iva, `${p}.iva`);
  const total = amount(g.total, `${p}.total`);
  if (neto !== undefined && iva !== undefined && total !== undefined && total < neto + iva)
    throw new DteEngineError('book_amount_mismatch', `${p}: the total is less than neto + IVA`, `${p}.total`);
  return (
    '<Detalle>' +
    el('Folio', g.folio) +
    (g.anulado === 'guia' ? el('Anulado', 2) : '') +
    el('TpoOper', g.tpoOper) +
    (g.fecha ? el('FchDoc', checkSiiDate(g.fecha, `${p}.fecha`)) : '') +
    (g.rut ? el('RUTDoc', toSiiRut(g.rut, `${p}.rut`)) : '') +
    (g.razonSocial ? el('RznSoc', bookText(g.razonSocial, 50, `${p}.razonSocial`)) : '') +
    (neto !== undefined ? el('MntNeto', neto) : '') +
    (neto !== undefined ? el('TasaImp', g.tasaIva ?? 19) : '') +
    (iva !== undefined ? el('IVA', iva) : '') +
    (total !== undefined ? el('MntTotal', total) : '') +
    (g.factura
      ? el('TpoDocRef', g.factura.tipoDoc) +
        el('FolioDocRef', g.factura.folio) +
        el('FchDocRef', checkSiiDate(g.factura.fecha, `${p}.factura.fecha`))
      : '') +
    '</Detalle>'
  );
}

export function buildLibroGuia(input: LibroGuiaInput): BuiltBook<LibroGuiaTotals> {
  const h = checkHeader(input);
  if (!Array.isArray(input.entries) || input.entries.length === 0)
    throw new DteEngineError('required_field', 'A book needs at least one guía', 'entries');
  const folios = new Set<number>();
  input.entries.forEach((g, i) => {
    if (folios.has(g.folio)) throw new DteEngineError('book_duplicate_document', `entries[${i}] repeats folio ${g.folio}`, `entries[${i}]`);
    folios.add(g.folio);
  });
  const details = input.entries.map(detalle).join('');
  const t = guiaTotals(input.entries);
  const body =
    caratula(h) +
    '<ResumenPeriodo>' +
    (t.foliosAnulados ? el('TotFolAnulado', t.foliosAnulados) : '') +
    (t.guiasAnuladas ? el('TotGuiaAnulada', t.guiasAnuladas) : '') +
    el('TotGuiaVenta', t.guiasVenta) +
    el('TotMntGuiaVta', t.montoGuiasVenta) +
    t.traslados
      .map((x) => `<TotTraslado>${el('TpoTraslado', x.tpoTraslado)}${el('CantGuia', x.cantidad)}${el('MntGuia', x.monto)}</TotTraslado>`)
      .join('') +
    '</ResumenPeriodo>' +
    details;
  const xml = writeSignedBook('LibroGuia', 'LibroGuia_v10.xsd', h, body);
  return { xml, id: h.id, rutEnvia: h.rutEnvia, timestamp: h.timestamp, totals: t };
}
