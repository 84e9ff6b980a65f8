import { el } from './xml-escape.ts';
import { MAX_DETALLE_LINES, MAX_DETALLE_LINES_BOLETA } from './limits.ts';
import type { NormalizedDte } from './normalize.ts';
import type { TipoDte } from './types.ts';

/**
 * One strategy per document family (LibreDTE-style builder strategies): what the schema requires
 * and how each part of `<Documento>` is written. Element order follows the XSD sequences
 * (DTE_v10.xsd DTEDefType for 33/34/46/52/56/61, EnvioBOLETA_v11.xsd BOLETADefType for 39/41).
 * Every fragment is emitted in canonical form (see xmldsig.ts).
 */
export interface DocumentStrategy {
  /** Which schema type the document follows. */
  schema: 'DTE' | 'BOLETA';
  envelope: 'EnvioDTE' | 'EnvioBOLETA';
  receptorRequired: boolean;
  requiresReferencias: boolean;
  /** Type 33 with only exempt lines must be a 34. */
  forbidAllExempt: boolean;
  maxLines: number;
  idDoc(d: NormalizedDte): string;
  emisor(d: NormalizedDte): string;
  receptor(d: NormalizedDte): string;
  totales(d: NormalizedDte): string;
  detalle(d: NormalizedDte): string;
  referencias(d: NormalizedDte): string;
}

function opt(name: string, v: string | number | undefined): string {
  return v === undefined ? '' : el(name, v);
}

function detalleLines(d: NormalizedDte): string {
  let out = '';
  d.detalle.forEach((l, i) => {
    out +=
      '<Detalle>' +
      el('NroLinDet', i + 1) +
      (l.exento ? el('IndExe', 1) : '') +
      el('NmbItem', l.nombre) +
      opt('DscItem', l.descripcion) +
      opt('QtyItem', l.cantidad) +
      opt('UnmdItem', l.unidad) +
      opt('PrcItem', l.precio) +
      el('MontoItem', l.montoItem) +
      '</Detalle>';
  });
  return out;
}

/** DTE_v10 Documento (facturas, notes, 46, 52) */
const dteV10: Omit<DocumentStrategy, 'totales' | 'forbidAllExempt' | 'requiresReferencias' | 'idDoc'> = {
  schema: 'DTE',
  envelope: 'EnvioDTE',
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

const factura: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: true,
  idDoc: (d) => idDocDte(d),
  totales: totalesAfecto,
};

/** 46, 56, 61: like a factura, but a note may modify an exempt document (all lines exempt). */
const afectoFlexible: DocumentStrategy = { ...factura, forbidAllExempt: false };
const nota: DocumentStrategy = { ...afectoFlexible, requiresReferencias: true };

const guia: DocumentStrategy = {
  ...afectoFlexible,
  // IndTraslado: the SII requires it on guías; 1 = "operación constituye venta".
  idDoc: (d) => idDocDte(d, el('IndTraslado', d.indTraslado ?? 1)),
};

const facturaExenta: DocumentStrategy = {
  ...dteV10,
  requiresReferencias: false,
  forbidAllExempt: false,
  idDoc: (d) => idDocDte(d),
  totales: (d) => '<Totales>' + el('MntExe', d.totals.montoExento) + el('MntTotal', d.totals.montoTotal) + '</Totales>',
};

/** BOLETADefType: RznSocEmisor/GiroEmisor, IndServicio mandatory, no Acteco, no TasaIVA, light receptor. */
const boletaBase: Omit<DocumentStrategy, 'totales'> = {
  schema: 'BOLETA',
  envelope: 'EnvioBOLETA',
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

const boleta: DocumentStrategy = {
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

const boletaExenta: DocumentStrategy = {
  ...boletaBase,
  totales: (d) => '<Totales>' + el('MntExe', d.totals.montoExento) + el('MntTotal', d.totals.montoTotal) + '</Totales>',
};

const STRATEGIES: Record<TipoDte, DocumentStrategy> = {
  33: factura,
  34: facturaExenta,
  39: boleta,
  41: boletaExenta,
  46: afectoFlexible,
  52: guia,
  56: nota,
  61: nota,
};

export function strategyFor(tipoDte: TipoDte): DocumentStrategy {
  return STRATEGIES[tipoDte];
}

export function envelopeKindFor(tipoDte: number): 'EnvioDTE' | 'EnvioBOLETA' {
  return tipoDte === 39 || tipoDte === 41 ? 'EnvioBOLETA' : 'EnvioDTE';
}
