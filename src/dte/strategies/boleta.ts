import { el } from '../xml-escape.ts';
import { opt } from './strategy.ts';
import type { DocumentStrategy } from './strategy.ts';
import { detalle, globales, referencias } from './parts.ts';
import { boletaRules } from './family-rules.ts';

/** BOLETADefType: RznSocEmisor/GiroEmisor, IndServicio mandatory, no Acteco, no TasaIVA, light receptor. */
const boletaBase: Omit<DocumentStrategy, 'totales'> = {
  ...boletaRules,
  idDoc: (d) =>
    '<IdDoc>' +
    el('TipoDTE', d.tipoDte) +
    el('Folio', d.folio) +
    el('FchEmis', d.fechaEmision) +
    el('IndServicio', d.indServicio ?? 3) +
    (d.indMontoNeto ? el('IndMntNeto', 2) : '') +
    opt('FchVenc', d.fechaVencimiento) +
    '</IdDoc>',
  emisor(d) {
    const e = d.emisor;
    return (
      '<Emisor>' +
      el('RUTEmisor', e.rut) +
      el('RznSocEmisor', e.razonSocial) +
      el('GiroEmisor', e.giro) +
      opt('CdgSIISucur', e.codigoSucursal) +
      opt('DirOrigen', e.direccion) +
      opt('CmnaOrigen', e.comuna) +
      opt('CiudadOrigen', e.ciudad) +
      '</Emisor>'
    );
  },
  receptor(d) {
    const r = d.receptor;
    return (
      '<Receptor>' +
      el('RUTRecep', r.rut) +
      opt('RznSocRecep', r.razonSocial) +
      opt('Contacto', r.contacto) +
      opt('DirRecep', r.direccion) +
      opt('CmnaRecep', r.comuna) +
      opt('CiudadRecep', r.ciudad) +
      '</Receptor>'
    );
  },
  detalle: (d) => detalle(d, 'BOLETA'),
  referencias: (d) => globales(d) + referencias(d, 'BOLETA'),
};

const montoNF = (n: number) => (n !== 0 ? el('MontoNF', n) : '');

/** The boleta afecta. */
export const boleta: DocumentStrategy = {
  ...boletaBase,
  totales(d) {
    const t = d.totals;
    // IVA is a positiveInteger in BOLETADefType: omitted (with MntNeto) when there is no taxed amount.
    return (
      '<Totales>' +
      (t.iva > 0 ? el('MntNeto', t.montoNeto) : '') +
      (t.montoExento > 0 ? el('MntExe', t.montoExento) : '') +
      (t.iva > 0 ? el('IVA', t.iva) : '') +
      el('MntTotal', t.montoTotal) +
      montoNF(t.montoNoFacturable) +
      '</Totales>'
    );
  },
};

/** The boleta exenta. */
export const boletaExenta: DocumentStrategy = {
  ...boletaBase,
  totales: (d) =>
    '<Totales>' +
    el('MntExe', d.totals.montoExento) +
    el('MntTotal', d.totals.montoTotal) +
    montoNF(d.totals.montoNoFacturable) +
    '</Totales>',
};
