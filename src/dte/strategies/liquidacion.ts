import { el } from '../xml-escape.ts';
import type { DocumentStrategy } from './strategy.ts';
import { liquidacionRules } from './family-rules.ts';
import { comisiones, detalle, emisor, idDoc, receptor, referencias, taxTotals } from './parts.ts';

/**
 * DTE_v10 `Liquidacion` (43, liquidación-factura): the commission agent liquidates the sales it
 * made for the receptor (the mandante). Each line names the type of document it liquidates
 * (TpoDocLiq); the commissions and other charges (Comisiones, mandatory on a 43) are subtracted:
 * MntTotal = neto + exento + IVA − ValComNeto − ValComExe − ValComIVA (format document, field 124).
 * Its schema has no line or global discounts, no Transporte and no OtraMoneda.
 */
export const liquidacionFactura: DocumentStrategy = {
  ...liquidacionRules,
  idDoc: (d) => idDoc(d, 'Liquidacion'),
  emisor,
  receptor: (d) => receptor(d, 'Liquidacion'),
  totales(d) {
    const t = d.totals;
    const tax = taxTotals(d, 'Liquidacion');
    return (
      '<Totales>' +
      el('MntNeto', t.montoNeto) +
      (t.montoExento !== 0 ? el('MntExe', t.montoExento) : '') +
      el('TasaIVA', t.tasaIva ?? 19) +
      el('IVA', t.iva) +
      tax.impuestos +
      tax.comisiones +
      el('MntTotal', t.montoTotal) +
      '</Totales>'
    );
  },
  detalle: (d) => detalle(d, 'Liquidacion'),
  referencias: (d) => referencias(d, 'Liquidacion') + comisiones(d),
};
