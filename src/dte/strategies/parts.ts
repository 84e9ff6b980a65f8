import { el } from '../xml-escape.ts';
import type { NormalizedDte } from '../normalize.ts';
import { opt } from './strategy.ts';
import type { DocumentType } from '../catalogue.ts';

/**
 * The parts of DTE_v10.xsd's three document roots, written in their sequences' order. The roots
 * share most elements; where one lacks an element (Exportaciones has no IndTraslado or
 * CodImpAdic, Liquidacion no Transporte or DscRcgGlobal, …) the normaliser has already refused
 * the field, and the writers below skip it by root so the XML always follows its schema.
 */
type Root = DocumentType['root'];

export function idDoc(d: NormalizedDte, root: Root): string {
  return (
    '<IdDoc>' +
    el('TipoDTE', d.tipoDte) +
    el('Folio', d.folio) +
    el('FchEmis', d.fechaEmision) +
    opt('TipoDespacho', d.tipoDespacho) +
    (root === 'Documento' ? opt('IndTraslado', d.indTraslado) : '') +
    opt('IndServicio', d.indServicio) +
    (root !== 'Exportaciones' && d.montoBruto ? el('MntBruto', 1) : '') +
    opt('FmaPago', d.formaPago) +
    (root !== 'Liquidacion' ? opt('FmaPagExp', d.exportacion?.formaPago) : '') +
    d.pagos
      .map((p) => '<MntPagos>' + el('FchPago', p.fecha) + el('MntPago', p.monto) + opt('GlosaPagos', p.glosa) + '</MntPagos>')
      .join('') +
    opt('MedioPago', d.medioPago) +
    opt('TermPagoGlosa', d.terminosPago) +
    opt('TermPagoDias', d.terminosPagoDias) +
    opt('FchVenc', d.fechaVencimiento) +
    '</IdDoc>'
  );
}

export function emisor(d: NormalizedDte): string {
  const e = d.emisor;
  return (
    '<Emisor>' +
    el('RUTEmisor', e.rut) +
    el('RznSoc', e.razonSocial) +
    el('GiroEmis', e.giro) +
    opt('Telefono', e.telefono) +
    opt('CorreoEmisor', e.correo) +
    e.acteco.map((a) => el('Acteco', a)).join('') +
    opt('Sucursal', e.sucursal) +
    opt('CdgSIISucur', e.codigoSucursal) +
    opt('DirOrigen', e.direccion) +
    opt('CmnaOrigen', e.comuna) +
    opt('CiudadOrigen', e.ciudad) +
    opt('CdgVendedor', e.vendedor) +
    '</Emisor>'
  );
}

export function receptor(d: NormalizedDte, root: Root): string {
  const r = d.receptor;
  const x = r.extranjero;
  const extranjero =
    root === 'Exportaciones' && x && (x.numeroId || x.nacionalidad)
      ? '<Extranjero>' + opt('NumId', x.numeroId) + opt('Nacionalidad', x.nacionalidad) + '</Extranjero>'
      : '';
  return (
    '<Receptor>' +
    el('RUTRecep', r.rut) +
    el('RznSocRecep', r.razonSocial ?? '') +
    extranjero +
    opt('GiroRecep', r.giro) +
    opt('Contacto', r.contacto) +
    opt('CorreoRecep', r.correo) +
    opt('DirRecep', r.direccion) +
    opt('CmnaRecep', r.comuna) +
    opt('CiudadRecep', r.ciudad) +
    '</Receptor>'
  );
}

function aduana(d: NormalizedDte): string {
  const a = d.exportacion?.aduana;
  if (!a) return '';
  const fields: [string, string][] = [
    ['CodModVenta', 'modalidadVenta'],
    ['CodClauVenta', 'clausulaVenta'],
    ['TotClauVenta', 'totalClausulaVenta'],
    ['CodViaTransp', 'viaTransporte'],
    ['NombreTransp', 'nombreTransporte'],
    ['RUTCiaTransp', 'rutCompaniaTransporte'],
    ['NomCiaTransp', 'nombreCompaniaTransporte'],
    ['Booking', 'booking'],
    ['Operador', 'operador'],
    ['CodPtoEmbarque', 'puertoEmbarque'],
    ['CodPtoDesemb', 'puertoDesembarque'],
    ['Tara', 'tara'],
    ['CodUnidMedTara', 'unidadTara'],
    ['PesoBruto', 'pesoBruto'],
    ['CodUnidPesoBruto', 'unidadPesoBruto'],
    ['PesoNeto', 'pesoNeto'],
    ['CodUnidPesoNeto', 'unidadPesoNeto'],
    ['TotItems', 'totalItems'],
    ['TotBultos', 'totalBultos'],
  ];
  const tail: [string, string][] = [
    ['MntFlete', 'flete'],
    ['MntSeguro', 'seguro'],
    ['CodPaisRecep', 'paisReceptor'],
    ['CodPaisDestin', 'paisDestino'],
  ];
  const write = (list: [string, string][]) => list.map(([tag, k]) => opt(tag, a.fields[k])).join('');
  const bultos = a.bultos
    .map(
      (b) =>
        '<TipoBultos>' +
        el('CodTpoBultos', b.tipo) +
        el('CantBultos', b.cantidad) +
        opt('Marcas', b.marcas) +
        opt('IdContainer', b.idContainer) +
        opt('Sello', b.sello) +
        opt('EmisorSello', b.emisorSello) +
        '</TipoBultos>',
    )
    .join('');
  const inner = write(fields) + bultos + write(tail);
  return inner ? `<Aduana>${inner}</Aduana>` : '';
}

export function transporte(d: NormalizedDte): string {
  const t = d.transporte;
  const inner =
    (t
      ? opt('Patente', t.patente) +
        opt('RUTTrans', t.rutTransportista) +
        (t.chofer ? '<Chofer>' + el('RUTChofer', t.chofer.rut) + el('NombreChofer', t.chofer.nombre) + '</Chofer>' : '') +
        opt('DirDest', t.direccion) +
        opt('CmnaDest', t.comuna) +
        opt('CiudadDest', t.ciudad)
      : '') + aduana(d);
  return inner ? `<Transporte>${inner}</Transporte>` : '';
}

/** ImptoReten, IVANoRet, GrntDep and Comisiones totals of the taxed families. */
export function taxTotals(d: NormalizedDte, root: Root): { impuestos: string; afterImpuestos: string; comisiones: string } {
  const t = d.totals;
  const impuestos = t.impuestos
    .map((i) => '<ImptoReten>' + el('TipoImp', i.tipo) + el('TasaImp', i.tasa) + el('MontoImp', i.monto) + '</ImptoReten>')
    .join('');
  const afterImpuestos =
    root === 'Documento'
      ? (t.ivaNoRetenido > 0 ? el('IVANoRet', t.ivaNoRetenido) : '') + (t.garantiaDeposito > 0 ? el('GrntDep', t.garantiaDeposito) : '')
      : '';
  const c = t.comisiones;
  const comisiones = c
    ? '<Comisiones>' + el('ValComNeto', c.neto) + el('ValComExe', c.exento) + el('ValComIVA', c.iva) + '</Comisiones>'
    : '';
  return { impuestos, afterImpuestos, comisiones };
}

export function otraMoneda(d: NormalizedDte): string {
  const o = d.totals.otraMoneda;
  const rate = d.exportacion?.otraMoneda?.tipoCambio;
  if (!o) return '';
  return (
    '<OtraMoneda>' +
    el('TpoMoneda', o.moneda) +
    opt('TpoCambio', rate) +
    el('MntExeOtrMnda', o.montoExento) +
    el('MntTotOtrMnda', o.montoTotal) +
    '</OtraMoneda>'
  );
}

export function detalle(d: NormalizedDte, root: Root | 'BOLETA'): string {
  let out = '';
  d.detalle.forEach((l, i) => {
    out +=
      '<Detalle>' +
      el('NroLinDet', i + 1) +
      l.codigos.map((c) => '<CdgItem>' + el('TpoCodigo', c.tipo) + el('VlrCodigo', c.valor) + '</CdgItem>').join('') +
      (root === 'Liquidacion' ? el('TpoDocLiq', l.tipoDocLiquidado ?? '') : '') +
      opt('IndExe', l.indExe) +
      (root === 'Documento' && l.retenedor ? '<Retenedor><IndAgente>R</IndAgente></Retenedor>' : '') +
      el('NmbItem', l.nombre) +
      opt('DscItem', l.descripcion) +
      opt('QtyItem', l.cantidad) +
      opt('UnmdItem', l.unidad) +
      opt('PrcItem', l.precio) +
      (root !== 'Liquidacion'
        ? opt('DescuentoPct', l.descuentoPct) +
          (l.descuentoMonto ? el('DescuentoMonto', l.descuentoMonto) : '') +
          opt('RecargoPct', l.recargoPct) +
          (l.recargoMonto ? el('RecargoMonto', l.recargoMonto) : '')
        : '') +
      (root === 'Documento' || root === 'Liquidacion' ? l.impuestos.map((c) => el('CodImpAdic', c)).join('') : '') +
      el('MontoItem', l.montoItem) +
      '</Detalle>';
  });
  return out;
}

export function globales(d: NormalizedDte): string {
  return d.descuentosGlobales
    .map(
      (g, i) =>
        '<DscRcgGlobal>' +
        el('NroLinDR', i + 1) +
        el('TpoMov', g.tipo) +
        opt('GlosaDR', g.glosa) +
        el('TpoValor', g.unidad) +
        el('ValorDR', g.valor) +
        (g.exento ? el('IndExeDR', 1) : '') +
        '</DscRcgGlobal>',
    )
    .join('');
}

/**
 * Referencia in each root's sequence. A boleta's (EnvioBOLETA_v11.xsd) has no IndGlobal, RUTOtr or
 * FchRef, and its CodRef is free text; a Liquidacion's has no RUTOtr.
 */
export function referencias(d: NormalizedDte, root: Root | 'BOLETA'): string {
  const dte = root !== 'BOLETA';
  return d.referencias
    .map(
      (r, i) =>
        '<Referencia>' +
        el('NroLinRef', i + 1) +
        el('TpoDocRef', r.tipoDocRef) +
        (dte && r.indGlobal ? el('IndGlobal', 1) : '') +
        el('FolioRef', r.folioRef) +
        (dte && root !== 'Liquidacion' ? opt('RUTOtr', r.rutOtro) : '') +
        (dte ? el('FchRef', r.fechaRef) : '') +
        opt('CodRef', r.codRef) +
        opt('RazonRef', r.razonRef) +
        '</Referencia>',
    )
    .join('');
}

export function comisiones(d: NormalizedDte): string {
  return d.comisiones
    .map(
      (c, i) =>
        '<Comisiones>' +
        el('NroLinCom', i + 1) +
        el('TipoMovim', c.tipo) +
        el('Glosa', c.glosa) +
        opt('TasaComision', c.tasa) +
        el('ValComNeto', c.montoNeto) +
        el('ValComExe', c.montoExento) +
        el('ValComIVA', c.iva) +
        '</Comisiones>',
    )
    .join('');
}
