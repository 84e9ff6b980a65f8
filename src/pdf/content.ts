import {
  cedibleMarkOf,
  IVA_RATE_PERCENT,
  isBoleta,
  pricesGrossByDefault,
  RUT_ANONYMOUS,
  withholdsIva,
  type PrintableDte,
  type PrintableLine,
} from '../dte/index.ts';
import { formatAmount, formatDate, formatNumber, formatPercent, formatQuantity, formatRut, trimZeros, yearOf } from './format.ts';
import {
  codRefName,
  documentName,
  FORMA_PAGO,
  IND_TRASLADO,
  impuestoName,
  isRetencion,
  MEDIO_PAGO,
  referenceName,
  TIPO_DESPACHO,
} from './names.ts';

/**
 * What each block of the printed document says, independent of the paper: both layouts (carta,
 * 80 mm) draw these rows. Which fields appear follows column "I"/"P" of the SII's format document
 * (printed; printed as words); an absent field prints nothing.
 */
export interface RenderContext {
  doc: PrintableDte;
  cedible: boolean;
  unidadSii: string;
  resolucion: { numero: number; fecha: string };
}

export type Row = [label: string, value: string];

export const boxLines = (d: PrintableDte) => ({
  rut: `R.U.T.: ${formatRut(d.emisor.rut)}`,
  name: documentName(d.tipoDte),
  folio: `Nº ${d.folio}`,
});

export const siiLine = (c: RenderContext) => `S.I.I. - ${c.unidadSii.toUpperCase()}`;

/** The issuer's block, after its name. */
export function issuerLines(d: PrintableDte): string[] {
  const e = d.emisor;
  const place = [e.direccion, e.comuna, e.ciudad].filter(Boolean).join(', ');
  return [
    e.giro ?? '',
    place,
    e.sucursal ? `Sucursal: ${e.sucursal}${e.codigoSucursal ? ` (código SII ${e.codigoSucursal})` : ''}` : '',
    [e.telefono.length ? `Teléfono: ${e.telefono.join(' / ')}` : '', e.correo ? `Correo: ${e.correo}` : ''].filter(Boolean).join(' · '),
    e.vendedor ? `Vendedor: ${e.vendedor}` : '',
  ].filter(Boolean);
}

/** A boleta to the anonymous consumer has no receptor to print. */
const hasReceptor = (d: PrintableDte) => !(isBoleta(d.tipoDte) && (d.receptor.rut === RUT_ANONYMOUS || !d.receptor.rut));

export function receptorRows(d: PrintableDte): Row[] {
  const r = d.receptor;
  if (!hasReceptor(d)) return [];
  const rows: Row[] = [
    ['Señor(es)', r.razonSocial ?? ''],
    ['R.U.T.', formatRut(r.rut)],
    ['Giro', r.giro ?? ''],
    ['Dirección', r.direccion ?? ''],
    ['Comuna', r.comuna ?? ''],
    ['Ciudad', r.ciudad ?? ''],
    ['Contacto', r.contacto ?? ''],
  ];
  if (r.extranjero) {
    rows.push(['Nacionalidad', r.extranjero.nacionalidad ?? '']);
    rows.push(['Identificación', r.extranjero.numeroId ?? '']);
  }
  return rows.filter(([, v]) => v);
}

/** Dates and the terms of the sale. */
export function documentRows(d: PrintableDte): Row[] {
  const rows: Row[] = [['Fecha de emisión', formatDate(d.fechaEmision)]];
  if (d.fechaVencimiento) rows.push(['Vencimiento', formatDate(d.fechaVencimiento)]);
  if (d.formaPago !== null) rows.push(['Forma de pago', FORMA_PAGO[d.formaPago] ?? String(d.formaPago)]);
  if (d.medioPago) rows.push(['Medio de pago', MEDIO_PAGO[d.medioPago] ?? d.medioPago]);
  if (d.terminosPago) rows.push(['Términos de pago', d.terminosPago]);
  if (d.indTraslado !== null) rows.push(['Tipo de traslado', IND_TRASLADO[d.indTraslado] ?? String(d.indTraslado)]);
  if (d.tipoDespacho !== null) rows.push(['Tipo de despacho', TIPO_DESPACHO[d.tipoDespacho] ?? String(d.tipoDespacho)]);
  for (const p of d.pagos) rows.push([`Pago ${formatDate(p.fecha)}`, `${formatAmount(p.monto)}${p.glosa ? ` (${p.glosa})` : ''}`]);
  return rows;
}

export function transporteRows(d: PrintableDte): Row[] {
  const t = d.transporte;
  if (!t) return [];
  const rows: Row[] = [
    ['Patente', t.patente ?? ''],
    ['R.U.T. transportista', t.rutTransportista ? formatRut(t.rutTransportista) : ''],
    ['Chofer', [t.nombreChofer, t.rutChofer ? formatRut(t.rutChofer) : ''].filter(Boolean).join(', R.U.T. ')],
    ['Destino', [t.direccion, t.comuna, t.ciudad].filter(Boolean).join(', ')],
  ];
  return rows.filter(([, v]) => v);
}

/** The figures of a currency other than the peso print without "$". */
const money = (d: PrintableDte) => (d.totales.moneda && d.totales.moneda !== 'PESO CL' ? formatNumber : formatAmount);

export interface LineCells {
  codigo: string;
  nombre: string;
  /** Small print under the name: description, exemption, additional taxes. */
  nota: string;
  cantidad: string;
  unidad: string;
  precio: string;
  ajuste: string;
  monto: string;
}

export function lineCells(d: PrintableDte, l: PrintableLine): LineCells {
  const m = money(d);
  const notes = [
    l.descripcion ?? '',
    l.indExe === 1 ? 'Exento' : l.indExe === 2 ? 'No facturable' : l.indExe ? `Indicador de exención ${l.indExe}` : '',
    ...l.impuestoAdicional.map((c) => `Afecto a ${impuestoName(c)}`),
  ].filter(Boolean);
  const adj: string[] = [];
  if (l.descuentoMonto) adj.push(`-${m(l.descuentoMonto)}${l.descuentoPct ? ` (${formatPercent(l.descuentoPct)})` : ''}`);
  if (l.recargoMonto) adj.push(`+${m(l.recargoMonto)}${l.recargoPct ? ` (${formatPercent(l.recargoPct)})` : ''}`);
  return {
    codigo: l.codigos.map((c) => c.valor).join(' '),
    nombre: l.nombre,
    nota: notes.join(' · '),
    cantidad: l.cantidad ? formatQuantity(l.cantidad) : '',
    unidad: l.unidad ?? '',
    precio: l.precio ? m(trimZeros(l.precio)) : '',
    ajuste: adj.join(' '),
    monto: m(l.montoItem),
  };
}

export interface TotalRow {
  label: string;
  value: string;
  strong?: boolean;
}

export function totalRows(d: PrintableDte): TotalRow[] {
  const t = d.totales;
  const m = money(d);
  const rows: TotalRow[] = [];
  for (const g of d.descuentosGlobales) {
    const what = g.tipo === 'D' ? 'Descuento global' : 'Recargo global';
    rows.push({ label: g.glosa ? `${what} (${g.glosa})` : what, value: g.unidad === '%' ? formatPercent(g.valor) : m(g.valor) });
  }
  if (t.montoNeto !== null) rows.push({ label: 'Monto neto', value: m(t.montoNeto) });
  if (t.montoExento !== null) rows.push({ label: 'Monto exento', value: m(t.montoExento) });
  if (t.iva !== null) rows.push({ label: `IVA ${formatPercent(t.tasaIva ?? String(IVA_RATE_PERCENT))}`, value: m(t.iva) });
  for (const x of t.impuestos) {
    // The title says whether it is a withholding (format document, note 6 to the totals); on a
    // factura de compra the IVA withheld is subtracted from the total (MntTotal, field 124).
    const retencion = isRetencion(x.tipo);
    const name = impuestoName(x.tipo);
    const title = retencion && !/retenido|retenci/i.test(name) ? `Retención ${name}` : name;
    const value = retencion && withholdsIva(d.tipoDte) ? `-${m(x.monto)}` : m(x.monto);
    rows.push({ label: `${title}${x.tasa ? ` ${formatPercent(x.tasa)}` : ''}`, value });
  }
  if (t.ivaNoRetenido !== null) rows.push({ label: 'IVA no retenido', value: m(t.ivaNoRetenido) });
  if (t.creditoEmpresasConstructoras !== null)
    rows.push({ label: 'Crédito empresas constructoras', value: `-${m(t.creditoEmpresasConstructoras)}` });
  if (t.comisiones) {
    // A liquidación-factura's commissions and their IVA are subtracted from the total (MntTotal,
    // format document §A fields 121-124): printed with a minus, like a withholding; zero rows left out.
    const c = t.comisiones;
    const some = (v: string | null): v is string => v !== null && Number(v) !== 0;
    if (some(c.neto)) rows.push({ label: 'Comisiones (neto)', value: `-${m(c.neto)}` });
    if (some(c.exento)) rows.push({ label: 'Comisiones (exento)', value: `-${m(c.exento)}` });
    if (some(c.iva)) rows.push({ label: 'IVA comisiones', value: `-${m(c.iva)}` });
  }
  if (t.montoNoFacturable !== null) rows.push({ label: 'Monto no facturable', value: m(t.montoNoFacturable) });
  rows.push({ label: t.moneda && t.moneda !== 'PESO CL' ? `TOTAL (${t.moneda})` : 'TOTAL', value: m(t.montoTotal), strong: true });
  if (t.saldoAnterior !== null) rows.push({ label: 'Saldo anterior', value: m(t.saldoAnterior) });
  if (t.valorPagar !== null) rows.push({ label: 'Valor a pagar', value: m(t.valorPagar), strong: true });
  const o = d.otraMoneda;
  if (o) {
    if (o.tipoCambio) rows.push({ label: `Tipo de cambio (${o.moneda})`, value: formatQuantity(o.tipoCambio) });
    if (o.montoTotal) rows.push({ label: `Total en ${o.moneda}`, value: formatQuantity(o.montoTotal) });
  }
  return rows;
}

export interface ReferenceCells {
  tipo: string;
  folio: string;
  fecha: string;
  razon: string;
}

/** "Corrige montos: precio mal digitado"; the reason once when it only repeats the code's name. */
function referenceReason(r: PrintableDte['referencias'][number]): string {
  const code = r.codRef && /^[123]$/.test(r.codRef) ? codRefName(r.codRef) : r.codRef;
  const same = code && r.razonRef && code.toLowerCase().startsWith(r.razonRef.toLowerCase());
  return [code, same ? null : r.razonRef, r.rutOtro ? `R.U.T. ${formatRut(r.rutOtro)}` : null].filter(Boolean).join(': ');
}

export function referenceCells(d: PrintableDte): ReferenceCells[] {
  return d.referencias.map((r) => ({
    tipo: `${referenceName(r.tipoDocRef)}${r.indGlobal ? ' (global)' : ''}`,
    folio: r.folioRef ?? '',
    fecha: r.fechaRef ? formatDate(r.fechaRef) : '',
    razon: referenceReason(r),
  }));
}

export const timbreCaptions = (c: RenderContext): [string, string, string] => [
  'Timbre Electrónico SII',
  `Res. ${c.resolucion.numero} de ${yearOf(c.resolucion.fecha)}`,
  'Verifique documento: www.sii.cl',
];

/** The receptor's acknowledgement on the cedible copy (Ley 19.983). */
export const ACUSE_TITLE = 'ACUSE DE RECIBO';
export const ACUSE_FIELDS = ['Nombre', 'R.U.T.', 'Fecha', 'Recinto', 'Firma'] as const;
export const ACUSE_LEGAL =
  'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4°, y la letra c) del ' +
  'Art. 5° de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).';
/** The mark of the cedible copy: the guía's is "CEDIBLE CON SU FACTURA" (catalogue.ts). */
export const cedibleMark = (d: PrintableDte) => cedibleMarkOf(d.tipoDte);

/**
 * Prices that include IVA say so: a document with MntBruto = 1, and a boleta afecta unless
 * IndMntNeto = 2, since a boleta's line amounts include IVA by default (format document, IdDoc).
 */
export const montoBrutoNote = (d: PrintableDte) =>
  d.montoBruto || (pricesGrossByDefault(d.tipoDte) && d.indMontoNeto !== 2) ? 'Los precios incluyen IVA.' : '';
