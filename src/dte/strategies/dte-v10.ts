import { el } from '../xml-escape.ts';
import { MAX_DETALLE_LINES } from '../limits.ts';
import type { NormalizedDte } from '../normalize.ts';
import type { DocumentStrategy } from './strategy.ts';
import { comisiones, detalle, emisor, globales, idDoc, otraMoneda, receptor, referencias, taxTotals, transporte } from './parts.ts';

/** DTE_v10 `Documento` (33, 34, 46, 52, 56, 61). */
const dteV10: Omit<DocumentStrategy, 'totales' | 'forbidAllExempt' | 'requiresReferencias' | 'receptorDetailsRequired'> = {
  schema: 'DTE',
  root: 'Documento',
  boleta: false,
  exportacion: false,
  guia: false,
  envelope: 'EnvioDTE',
  needsActeco: true,
  receptorRequired: true,
  grossPrices: true,
  adjustments: true,
  indServicio: [1, 2, 3],
  maxLines: MAX_DETALLE_LINES,
  idDoc: (d) => idDoc(d, 'Documento'),
  emisor,
  receptor: (d) => receptor(d, 'Documento'),
  detalle: (d) => detalle(d, 'Documento'),
  referencias: (d) => globales(d) + referencias(d, 'Documento') + comisiones(d),
};

/**
 * Taxed family: MntNeto, MntExe, TasaIVA, IVA, ImptoReten…, IVANoRet, GrntDep, MntTotal, MontoNF.
 * The IVA block is left out only for a purely exempt note, and for a guía that moves goods
 * without any amount (MntTotal 0 alone).
 */
function totalesAfecto(d: NormalizedDte): string {
  const t = d.totals;
  const nothing = t.montoNeto === 0 && t.montoExento === 0 && t.montoTotal === 0 && d.strategy.guia;
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

/** 33. */
export const factura: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: true,
  receptorDetailsRequired: true,
  totales: totalesAfecto,
};

/** 46: like a factura, and may be all exempt. */
export const facturaCompra: DocumentStrategy = { ...factura, forbidAllExempt: false };

/** 56, 61: may modify an exempt document (all lines exempt); the receptor's details are optional. */
export const nota: DocumentStrategy = { ...factura, forbidAllExempt: false, requiresReferencias: true, receptorDetailsRequired: false };

/** 52: IndTraslado (default 1, "operación constituye venta"), TipoDespacho, Transporte. */
export const guia: DocumentStrategy = { ...facturaCompra, guia: true };

/** 34. */
export const facturaExenta: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: false,
  receptorDetailsRequired: true,
  totales: (d) =>
    transporte(d) +
    '<Totales>' +
    el('MntExe', d.totals.montoExento) +
    el('MntTotal', d.totals.montoTotal) +
    (d.totals.montoNoFacturable !== 0 ? el('MontoNF', d.totals.montoNoFacturable) : '') +
    '</Totales>',
};
