import { el } from '../xml-escape.ts';
import { checkExportForm, checkFacturaExportacionForm } from './export-form.ts';
import type { DocumentStrategy } from './strategy.ts';
import { exportRules } from './family-rules.ts';
import { detalle, emisor, globales, idDoc, otraMoneda, receptor, referencias, transporte } from './parts.ts';

/**
 * DTE_v10 `Exportaciones` (110 factura de exportación, 111 nota de débito, 112 nota de crédito):
 * every amount exempt and in the document's currency (Totales/TpoMoneda, up to 4 decimals),
 * optionally again in another currency (OtraMoneda), customs data in Transporte/Aduana, the
 * foreign receptor in Receptor/Extranjero. No CodImpAdic, no Retenedor, no MntBruto.
 */
const base: DocumentStrategy = {
  ...exportRules,
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

/** The factura de exportación: its receptor's address and the customs data, too. */
export const facturaExportacion: DocumentStrategy = { ...base, checkForm: checkFacturaExportacionForm };

/** The export notes: written as the factura (their references are a fact of the catalogue). */
export const notaExportacion: DocumentStrategy = base;
