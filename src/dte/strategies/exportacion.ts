import { el } from '../xml-escape.ts';
import { MAX_DETALLE_LINES } from '../limits.ts';
import { checkExportForm } from './export-form.ts';
import type { DocumentStrategy } from './strategy.ts';
import { detalle, emisor, globales, idDoc, otraMoneda, receptor, referencias, transporte } from './parts.ts';

/**
 * DTE_v10 `Exportaciones` (110 factura de exportación, 111 nota de débito, 112 nota de crédito):
 * every amount exempt and in the document's currency (Totales/TpoMoneda, up to 4 decimals),
 * optionally again in another currency (OtraMoneda), customs data in Transporte/Aduana, the
 * foreign receptor in Receptor/Extranjero. No CodImpAdic, no Retenedor, no MntBruto.
 */
const base: DocumentStrategy = {
  schema: 'DTE',
  root: 'Exportaciones',
  boleta: false,
  exportacion: true,
  guia: false,
  envelope: 'EnvioDTE',
  needsActeco: true,
  receptorRequired: true,
  receptorDetailsRequired: false,
  requiresReferencias: false,
  forbidAllExempt: false,
  grossPrices: false,
  adjustments: true,
  indServicio: [3, 4, 5],
  maxLines: MAX_DETALLE_LINES,
  checkForm: checkExportForm,
  idDoc: (d) => idDoc(d, 'Exportaciones'),
  emisor,
  receptor: (d) => receptor(d, 'Exportaciones'),
  totales: (d) =>
    transporte(d) +
    '<Totales>' +
    el('TpoMoneda', d.exportacion?.moneda ?? '') +
    el('MntExe', d.totals.montoExento) +
    el('MntTotal', d.totals.montoTotal) +
    '</Totales>' +
    otraMoneda(d),
  detalle: (d) => detalle(d, 'Exportaciones'),
  referencias: (d) => globales(d) + referencias(d, 'Exportaciones'),
};

/** 110. */
export const facturaExportacion: DocumentStrategy = base;

/** 111, 112. */
export const notaExportacion: DocumentStrategy = { ...base, requiresReferencias: true };
