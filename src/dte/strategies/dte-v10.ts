import { el } from '../xml-escape.ts';
import type { NormalizedDte } from '../normalize.ts';
import type { DocumentStrategy } from './strategy.ts';
import { documentRules, guiaRules } from './family-rules.ts';
import { comisiones, detalle, emisor, globales, idDoc, otraMoneda, receptor, referencias, taxTotals, transporte } from './parts.ts';

/** DTE_v10 `Documento`: facturas, notes, the guía. */
const dteV10: Omit<DocumentStrategy, 'totales'> = {
  ...documentRules,
  idDoc: (d) => idDoc(d, 'Documento'),
  emisor,
  receptor: (d) => receptor(d, 'Documento'),
  detalle: (d) => detalle(d, 'Documento'),
  referencias: (d) => globales(d) + referencias(d, 'Documento') + comisiones(d),
};

/**
 * Taxed family: MntNeto, MntExe, TasaIVA, IVA, ImptoReten…, IVANoRet, GrntDep, MntTotal, MontoNF.
 * The IVA block is left out only for a purely exempt note, and (`amountless`) for a guía that
 * moves goods without any amount (MntTotal 0 alone).
 */
function totalesAfecto(d: NormalizedDte, amountless = false): string {
  const t = d.totals;
  const nothing = t.montoNeto === 0 && t.montoExento === 0 && t.montoTotal === 0 && amountless;
  const withIva = !nothing && (t.montoNeto > 0 || t.montoExento === 0);
  const tax = taxTotals(d, 'Documento');
  return (
    transporte(d) +
    '<Totales>' +
    (withIva ? el('MntNeto', t.montoNeto) : '') +
    (t.montoExento > 0 ? el('MntExe', t.montoExento) : '') +
    (withIva ? el('TasaIVA', t.tasaIva ?? 19) + el('IVA', t.iva) : '') +
    tax.impuestos +
    tax.afterImpuestos +
    el('MntTotal', t.montoTotal) +
    (t.montoNoFacturable !== 0 ? el('MontoNF', t.montoNoFacturable) : '') +
    '</Totales>' +
    otraMoneda(d)
  );
}

/** The factura afecta; what may be all exempt, needs references or details is in the catalogue. */
export const factura: DocumentStrategy = { ...dteV10, totales: (d) => totalesAfecto(d) };

/** The factura de compra: written as a factura. */
export const facturaCompra: DocumentStrategy = factura;

/** Credit and debit notes: written as a factura. */
export const nota: DocumentStrategy = factura;

/** The guía de despacho: IndTraslado (default 1, "operación constituye venta"), TipoDespacho, Transporte. */
export const guia: DocumentStrategy = { ...factura, ...guiaRules, totales: (d) => totalesAfecto(d, true) };

/** The factura exenta. */
export const facturaExenta: DocumentStrategy = {
  ...dteV10,
  totales: (d) =>
    transporte(d) +
    '<Totales>' +
    el('MntExe', d.totals.montoExento) +
    el('MntTotal', d.totals.montoTotal) +
    (d.totals.montoNoFacturable !== 0 ? el('MontoNF', d.totals.montoNoFacturable) : '') +
    '</Totales>',
};
