import { el } from '../xml-escape.ts';
import { MAX_DETALLE_LINES } from '../limits.ts';
import type { NormalizedDte } from '../normalize.ts';
import { detalleLines, opt } from './strategy.ts';
import type { DocumentStrategy } from './strategy.ts';

/** DTE_v10 Documento (facturas, notes, 46, 52). */
const dteV10: Omit<DocumentStrategy, 'totales' | 'forbidAllExempt' | 'requiresReferencias' | 'idDoc'> = {
  schema: 'DTE',
  boleta: false,
  envelope: 'EnvioDTE',
  needsActeco: true,
  receptorRequired: true,
  maxLines: MAX_DETALLE_LINES,
  emisor(d) {
    const e = d.emisor;
    return (
      '<Emisor>' +
      el('RUTEmisor', e.rut) +
      el('RznSoc', e.razonSocial) +
      el('GiroEmis', e.giro) +
      opt('Telefono', e.telefono) +
      opt('CorreoEmisor', e.correo) +
      e.acteco.map((a) => el('Acteco', a)).join('') +
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
      el('RznSocRecep', r.razonSocial ?? '') +
      opt('GiroRecep', r.giro) +
      opt('Contacto', r.contacto) +
      opt('CorreoRecep', r.correo) +
      opt('DirRecep', r.direccion) +
      opt('CmnaRecep', r.comuna) +
      opt('CiudadRecep', r.ciudad) +
      '</Receptor>'
    );
  },
  detalle: detalleLines,
  referencias(d) {
    return d.referencias
      .map(
        (r, i) =>
          '<Referencia>' +
          el('NroLinRef', i + 1) +
          el('TpoDocRef', r.tipoDocRef) +
          el('FolioRef', r.folioRef) +
          el('FchRef', r.fechaRef) +
          opt('CodRef', r.codRef) +
          opt('RazonRef', r.razonRef) +
          '</Referencia>',
      )
      .join('');
  },
};

function idDocDte(d: NormalizedDte, extra = ''): string {
  return (
    '<IdDoc>' +
    el('TipoDTE', d.tipoDte) +
    el('Folio', d.folio) +
    el('FchEmis', d.fechaEmision) +
    extra +
    opt('FmaPago', d.formaPago) +
    '</IdDoc>'
  );
}

/** Taxed family: MntNeto, MntExe, TasaIVA, IVA, MntTotal (IVA block omitted only for a purely exempt note). */
function totalesAfecto(d: NormalizedDte): string {
  const t = d.totals;
  const withIva = t.montoNeto > 0 || t.montoExento === 0;
  return (
    '<Totales>' +
    (withIva ? el('MntNeto', t.montoNeto) : '') +
    (t.montoExento > 0 ? el('MntExe', t.montoExento) : '') +
    (withIva ? el('TasaIVA', t.tasaIva ?? 19) + el('IVA', t.iva) : '') +
    el('MntTotal', t.montoTotal) +
    '</Totales>'
  );
}

/** 33. */
export const factura: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: true,
  idDoc: (d) => idDocDte(d),
  totales: totalesAfecto,
};

/** 46 (and the base of 52, 56, 61): like a factura, but a note may modify an exempt document (all lines exempt). */
export const afectoFlexible: DocumentStrategy = { ...factura, forbidAllExempt: false };

/** 56, 61. */
export const nota: DocumentStrategy = { ...afectoFlexible, requiresReferencias: true };

/** 52. */
export const guia: DocumentStrategy = {
  ...afectoFlexible,
  // IndTraslado: the SII requires it on guías; 1 = "operación constituye venta".
  idDoc: (d) => idDocDte(d, el('IndTraslado', d.indTraslado ?? 1)),
};

/** 34. */
export const facturaExenta: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: false,
  idDoc: (d) => idDocDte(d),
  totales: (d) => '<Totales>' + el('MntExe', d.totals.montoExento) + el('MntTotal', d.totals.montoTotal) + '</Totales>',
};
