import { DteEngineError } from '../errors.ts';
import { checkSiiDate } from '../dates.ts';
import { el } from '../xml-escape.ts';
import { toSiiRut } from '../rut.ts';
import { bookText, caratula, checkHeader, opt, writeSignedBook } from './book-sign.ts';
import type { BookEntry, BookHeader, BuiltBook } from './book-types.ts';
import { entryAmounts, typeTotals, type EntryAmounts, type TypeTotals } from './libro-cv-amounts.ts';

/**
 * LibroCompraVenta (LibroCV_v10.xsd; the IECV manual v3.0, docs/certification.md "Books"): a special book
 * (TipoLibro ESPECIAL, asked for by a notification, as in certification) sent whole (TipoEnvio
 * TOTAL): carátula, ResumenPeriodo with one TotalesPeriodo per document type, one Detalle per
 * document, TmstFirma, signed. Elements in the schema's order.
 */
export interface LibroCompraVentaInput extends BookHeader {
  operacion: 'COMPRA' | 'VENTA';
  entries: readonly BookEntry[];
  /** FctProp: the share of IVA de uso común that is credit (0.001..0.999); purchases with uso común only. */
  factorProporcionalidad?: number | null | undefined;
}

/** IECV §3.4 field 21: a factura de compra with full withholding and no change of subject uses code 15. */
export const CODIGO_RETENCION_TOTAL = 15;

const tasa = (e: BookEntry) => e.tasaIva ?? 19;

function detalle(e: BookEntry, a: EntryAmounts, operacion: 'COMPRA' | 'VENTA', i: number): string {
  const p = `entries[${i}]`;
  if (a.anulado) return `<Detalle>${el('TpoDoc', e.tipoDoc)}${el('NroDoc', e.folio)}${el('Anulado', 'A')}</Detalle>`;
  const otros = [...a.otros];
  if (operacion === 'COMPRA' && a.ivaRetenidoTotal > 0)
    otros.push({ codigo: CODIGO_RETENCION_TOTAL, tasa: tasa(e), monto: a.ivaRetenidoTotal });
  return (
    '<Detalle>' +
    el('TpoDoc', e.tipoDoc) +
    el('NroDoc', e.folio) +
    el('TasaImp', tasa(e)) +
    el('FchDoc', checkSiiDate(e.fecha, `${p}.fecha`)) +
    el('RUTDoc', toSiiRut(e.rut, `${p}.rut`)) +
    (e.razonSocial ? el('RznSoc', bookText(e.razonSocial, 50, `${p}.razonSocial`)) : '') +
    (e.referencia ? el('TpoDocRef', e.referencia.tipoDoc) + el('FolioDocRef', e.referencia.folio) : '') +
    (a.exento ? el('MntExe', a.exento) : '') +
    (a.neto ? el('MntNeto', a.neto) : '') +
    el('MntIVA', a.ivaRecuperable) +
    (a.ivaNoRecuperable
      ? `<IVANoRec>${el('CodIVANoRec', a.ivaNoRecuperable.codigo)}${el('MntIVANoRec', a.ivaNoRecuperable.monto)}</IVANoRec>`
      : '') +
    (a.ivaUsoComun ? el('IVAUsoComun', a.ivaUsoComun) : '') +
    otros.map((o) => `<OtrosImp>${el('CodImp', o.codigo)}${opt('TasaImp', o.tasa)}${el('MntImp', o.monto)}</OtrosImp>`).join('') +
    (operacion === 'VENTA' && a.ivaRetenidoTotal ? el('IVARetTotal', a.ivaRetenidoTotal) : '') +
    el('MntTotal', a.total) +
    '</Detalle>'
  );
}

function totales(t: TypeTotals, operacion: 'COMPRA' | 'VENTA'): string {
  const otros = [...t.otrosImpuestos];
  if (operacion === 'COMPRA' && t.ivaRetenidoTotal) otros.push({ codigo: CODIGO_RETENCION_TOTAL, monto: t.ivaRetenidoTotal.monto });
  const u = t.ivaUsoComun;
  return (
    '<TotalesPeriodo>' +
    el('TpoDoc', t.tipoDoc) +
    el('TotDoc', t.documentos) +
    (t.anulados ? el('TotAnulado', t.anulados) : '') +
    el('TotMntExe', t.exento) +
    el('TotMntNeto', t.neto) +
    el('TotMntIVA', t.iva) +
    t.ivaNoRecuperable
      .map(
        (n) =>
          `<TotIVANoRec>${el('CodIVANoRec', n.codigo)}${el('TotOpIVANoRec', n.operaciones)}${el('TotMntIVANoRec', n.monto)}</TotIVANoRec>`,
      )
      .join('') +
    (u
      ? el('TotOpIVAUsoComun', u.operaciones) +
        el('TotIVAUsoComun', u.monto) +
        el('FctProp', u.factor) +
        el('TotCredIVAUsoComun', u.credito)
      : '') +
    otros.map((o) => `<TotOtrosImp>${el('CodImp', o.codigo)}${el('TotMntImp', o.monto)}</TotOtrosImp>`).join('') +
    (operacion === 'VENTA' && t.ivaRetenidoTotal
      ? el('TotOpIVARetTotal', t.ivaRetenidoTotal.operaciones) + el('TotIVARetTotal', t.ivaRetenidoTotal.monto)
      : '') +
    el('TotMntTotal', t.total) +
    '</TotalesPeriodo>'
  );
}

/** The entries' amounts and the ResumenPeriodo, checked, without writing or signing anything. */
export function libroCompraVentaTotals(input: Pick<LibroCompraVentaInput, 'operacion' | 'entries' | 'factorProporcionalidad'>): {
  amounts: EntryAmounts[];
  totals: TypeTotals[];
} {
  if (input.operacion !== 'COMPRA' && input.operacion !== 'VENTA')
    throw new DteEngineError('invalid_field', 'operacion must be COMPRA or VENTA', 'operacion');
  if (!Array.isArray(input.entries) || input.entries.length === 0)
    throw new DteEngineError('required_field', 'A book needs at least one document', 'entries');
  const factor = input.factorProporcionalidad ?? null;
  if (factor !== null && !(factor >= 0.001 && factor <= 0.999 && Math.abs(factor * 1000 - Math.round(factor * 1000)) < 1e-9))
    throw new DteEngineError(
      'invalid_field',
      'factorProporcionalidad must be between 0.001 and 0.999, with at most 3 decimals',
      'factorProporcionalidad',
    );
  const seen = new Set<string>();
  const amounts = input.entries.map((e, i) => {
    if (!Number.isSafeInteger(e.tipoDoc) || e.tipoDoc < 1)
      throw new DteEngineError('invalid_field', 'tipoDoc must be a document type code', `entries[${i}].tipoDoc`);
    if (!Number.isSafeInteger(e.folio) || e.folio < 1 || e.folio > 9_999_999_999)
      throw new DteEngineError('invalid_field', 'folio must be a positive integer of up to 10 digits', `entries[${i}].folio`);
    const key = `${e.tipoDoc}/${e.folio}${input.operacion === 'COMPRA' ? `/${e.rut}` : ''}`;
    if (seen.has(key))
      throw new DteEngineError('book_duplicate_document', `entries[${i}] repeats document ${e.tipoDoc} folio ${e.folio}`, `entries[${i}]`);
    seen.add(key);
    return { tipoDoc: e.tipoDoc, a: entryAmounts(e, i, input.operacion) };
  });
  return { amounts: amounts.map((x) => x.a), totals: typeTotals(amounts, factor) };
}

export function buildLibroCompraVenta(input: LibroCompraVentaInput): BuiltBook<TypeTotals[]> {
  const h = checkHeader(input);
  // The IECV validations (docs/sources.md [IECV], "validaciones", no. 35, a rejection): every
  // document of a sales book is dated in the book's month.
  if (input.operacion === 'VENTA') {
    input.entries.forEach((e, i) => {
      if (!e.anulado && typeof e.fecha === 'string' && e.fecha.slice(0, 7) !== h.periodo)
        throw new DteEngineError(
          'book_period_mismatch',
          `entries[${i}] is dated ${e.fecha}, outside the book's period ${h.periodo}: a sales book holds the documents of its month`,
          `entries[${i}].fecha`,
        );
    });
  }
  const { amounts, totals } = libroCompraVentaTotals(input);
  const body =
    caratula(h, input.operacion) +
    `<ResumenPeriodo>${totals.map((t) => totales(t, input.operacion)).join('')}</ResumenPeriodo>` +
    input.entries.map((e, i) => detalle(e, amounts[i]!, input.operacion, i)).join('');
  const xml = writeSignedBook('LibroCompraVenta', 'LibroCV_v10.xsd', h, body);
  return { xml, id: h.id, rutEnvia: h.rutEnvia, timestamp: h.timestamp, totals };
}
