import { el } from '../xml-escape.ts';
import { MAX_DETALLE_LINES_BOLETA } from '../limits.ts';
import { detalleLines, opt } from './strategy.ts';
import type { DocumentStrategy } from './strategy.ts';

/** BOLETADefType: RznSocEmisor/GiroEmisor, IndServicio mandatory, no Acteco, no TasaIVA, light receptor. */
const boletaBase: Omit<DocumentStrategy, 'totales'> = {
  schema: 'BOLETA',
  boleta: true,
  envelope: 'EnvioBOLETA',
  needsActeco: false,
  receptorRequired: false,
  requiresReferencias: false,
  forbidAllExempt: false,
  maxLines: MAX_DETALLE_LINES_BOLETA,
  idDoc: (d) =>
    '<IdDoc>' +
    el('TipoDTE', d.tipoDte) +
    el('Folio', d.folio) +
    el('FchEmis', d.fechaEmision) +
    el('IndServicio', d.indServicio) +
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
  detalle: detalleLines,
  referencias(d) {
    // Boleta references have no FchRef and a free-text CodRef.
    return d.referencias
      .map(
        (r, i) =>
          '<Referencia>' +
          el('NroLinRef', i + 1) +
          el('TpoDocRef', r.tipoDocRef) +
          el('FolioRef', r.folioRef) +
          opt('CodRef', r.codRef) +
          opt('RazonRef', r.razonRef) +
          '</Referencia>',
      )
      .join('');
  },
};

/** 39. */
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
      '</Totales>'
    );
  },
};

/** 41. */
export const boletaExenta: DocumentStrategy = {
  ...boletaBase,
  totales: (d) => '<Totales>' + el('MntExe', d.totals.montoExento) + el('MntTotal', d.totals.montoTotal) + '</Totales>',
};
