import { computeTotals, isDteEngineError, type TipoDte } from '../../../dte/index.ts';
import {
  isExemptType,
  isExportType,
  isFacturaCompraType,
  isGuiaType,
  isLiquidacionType,
  isNoteType,
  IVA_RETENIDO_TOTAL,
  liquidatedTypeOf,
} from './document-types.ts';
import type { ParsedSet, SectionKind, SetCase, SetItem } from './set.types.ts';

/**
 * A case of the set as the body of `POST /api/v1/tenants/{tenantId}/dte` (docs/dte.md), pure.
 * The SII requires the first reference of every set document to be TpoDocRef "SET" with RazonRef
 * "CASO n-k" (its instructions for the test set, I.6); a note's own reference follows it. A
 * reference to another case's document cannot be known before that document exists: its
 * `folioRef` is 0 and `pending` says which case fills it (and its `fechaRef`).
 */
export interface RequestLine {
  nombre: string;
  cantidad?: number;
  precioUnitario?: number;
  unidad?: string;
  exento?: boolean;
  descuentoPct?: number;
  recargoPct?: number;
  tipoDocLiquidado?: number;
  impuestoAdicional?: number;
  /** Left out with precioUnitario on a priceless guía line (docs/decisions.md §11). */
  montoItem?: number;
}
export interface RequestReference {
  tipoDocRef: string | number;
  folioRef: number;
  fechaRef: string;
  codRef?: 1 | 2 | 3;
  razonRef?: string;
}
export interface ReceptorRequest {
  rut: string;
  razonSocial: string;
  giro?: string;
  direccion?: string;
  comuna?: string;
  ciudad?: string;
  extranjero?: { nacionalidad?: string };
}
export interface CaseDocumentRequest {
  tipoDte: number;
  fechaEmision: string;
  receptor: ReceptorRequest;
  detalle: RequestLine[];
  referencias: RequestReference[];
  descuentosGlobales?: { tipo: 'descuento' | 'recargo'; valor: number; unidad: '%' | '$'; glosa?: string; exento?: boolean }[];
  indTraslado?: number;
  tipoDespacho?: number;
  indServicio?: number;
  exportacion?: { moneda: string; formaPago?: number; aduana?: Record<string, unknown> };
  comisiones?: { tipo: 'comision' | 'otro'; glosa: string; montoNeto: number }[];
  montoTotal: number;
}
export interface CaseRequest {
  caseId: string;
  body: CaseDocumentRequest;
  /** References to fill once the named case's document exists (its folio and date). */
  pending: { index: number; caseId: string }[];
  /** What the API cannot express yet for this case, in words (docs/certification.md, "Limits"). */
  limits: string[];
  /** The limits that keep the case from being built at all (a subset of `limits`). */
  unbuildable: string[];
}
export interface CaseRequestOptions {
  /** YYYY-MM-DD: the documents' date, and the date written on references until resolved. */
  fecha: string;
  /** The receptor of the set's documents (the SII asks for an existing client's RUT). */
  receptor: ReceptorRequest;
  /** The tenant itself: the receptor of a guía that moves goods between its own premises. */
  emisor: ReceptorRequest;
  /** The foreign receptor of export documents (RUT 55.555.555-5). */
  receptorExtranjero: ReceptorRequest;
}

/** The sections whose cases are documents this service issues. */
export const DOCUMENT_SECTIONS: readonly SectionKind[] = [
  'basico',
  'guias',
  'exenta',
  'exportacion_1',
  'exportacion_2',
  'liquidaciones',
  'factura_compra',
];

/** Every document case of the set, in the set's order. */
export function caseRequests(set: ParsedSet, opts: CaseRequestOptions): CaseRequest[] {
  const built = new Map<string, CaseRequest>();
  const byId = new Map(set.cases.map((c) => [c.id, c]));
  const build = (c: SetCase): CaseRequest => {
    const done = built.get(c.id);
    if (done) return done;
    const target = c.reference ? byId.get(c.reference.caseId) : undefined;
    const r = caseRequest(c, opts, target ? build(target) : undefined, target);
    built.set(c.id, r);
    return r;
  };
  return set.cases.filter((c) => DOCUMENT_SECTIONS.includes(c.section)).map(build);
}

/** codRef of a note from its RAZON REFERENCIA: ANULA 1; a text correction without lines 2; else 3. */
function codRefOf(c: SetCase): 1 | 2 | 3 {
  const reason = c.reference?.reason ?? '';
  if (/\bANULA\b/.test(reason)) return 1;
  if (/\bCORRIGE\b/.test(reason) && c.items.length === 0) return 2;
  return 3;
}

const same = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();

/**
 * One case. `referenced` is the request already built for the case this one references (a note's
 * lines and export data come from it when the case does not repeat them).
 */
export function caseRequest(c: SetCase, opts: CaseRequestOptions, referenced?: CaseRequest, target?: SetCase): CaseRequest {
  const tipoDte = c.documentType.code;
  const limits: string[] = [];
  const unbuildable: string[] = [];
  const cannot = (why: string) => {
    limits.push(why);
    unbuildable.push(why);
  };
  const exempt = isExemptType(tipoDte);
  const isNote = isNoteType(tipoDte);
  const isExport = isExportType(tipoDte);
  const referencias: RequestReference[] = [{ tipoDocRef: 'SET', folioRef: 0, fechaRef: opts.fecha, razonRef: `CASO ${c.id}` }];
  const pending: CaseRequest['pending'] = [];
  let detalle: Omit<RequestLine, 'montoItem'>[];
  let descuentosGlobales: CaseDocumentRequest['descuentosGlobales'];
  let exportacion = referenced?.body.exportacion;
  let receptor = isExport || c.exportacion ? opts.receptorExtranjero : opts.receptor;
  if (referenced) receptor = referenced.body.receptor;

  if (isNote && c.reference) {
    const codRef = codRefOf(c);
    referencias.push({ tipoDocRef: c.reference.tipoDte, folioRef: 0, fechaRef: opts.fecha, codRef, razonRef: c.reference.reason ?? '' });
    pending.push({ index: 1, caseId: c.reference.caseId });
    if (codRef === 1) {
      // Cancelling: the very lines and global adjustments of the document cancelled.
      detalle = (referenced?.body.detalle ?? []).map(({ montoItem: _m, ...l }) => l);
      descuentosGlobales = referenced?.body.descuentosGlobales;
    } else if (codRef === 2) {
      detalle = [{ nombre: c.reference.reason ?? 'CORRIGE TEXTO', cantidad: 1, precioUnitario: 0 }];
    } else {
      // Returned goods keep the invoice's price (and its line discount); a price difference
      // applies to every unit of the item (the SII's instructions for the test set, I.4.e).
      detalle = c.items.map((it) => {
        const original = target?.items.find((o) => same(o.name, it.name));
        if (!original)
          limits.push(`line '${it.name}' is not a line of CASO ${c.reference!.caseId}: its price and quantity are the note's own`);
        // A note on an exempt document (a 34) or an exempt line corrects exempt amounts.
        const exentoOriginal = (target !== undefined && isExemptType(target.documentType.code)) || original?.exento === true;
        return lineOf(
          {
            ...it,
            exento: it.exento || exentoOriginal,
            cantidad: it.cantidad ?? original?.cantidad ?? 1,
            precioUnitario: it.precioUnitario ?? original?.precioUnitario ?? null,
            descuentoPct: it.descuentoPct ?? (it.precioUnitario === null ? (original?.descuentoPct ?? null) : null),
          },
          tipoDte,
          exempt,
        );
      });
    }
  } else {
    detalle = c.items.map((it) => lineOf(it, tipoDte, exempt));
    descuentosGlobales = c.globalAdjustments.map((g) => ({
      tipo: g.tipo,
      valor: g.valor,
      unidad: g.unidad,
      ...(isExport ? { glosa: g.text.slice(0, 45) } : {}),
      ...(g.exento && !exempt ? { exento: true } : {}),
    }));
  }

  const body: CaseDocumentRequest = { tipoDte, fechaEmision: opts.fecha, receptor, detalle: [], referencias, montoTotal: 0 };

  if (isGuiaType(tipoDte) && c.traslado) {
    if (c.traslado.indTraslado !== null) body.indTraslado = c.traslado.indTraslado;
    else cannot(`MOTIVO '${c.traslado.motivo}' is not an IndTraslado this module knows`);
    if (c.traslado.tipoDespacho !== null) body.tipoDespacho = c.traslado.tipoDespacho;
    // A move between the issuer's own premises names the issuer as receptor (the set's note).
    if (c.traslado.indTraslado === 5) body.receptor = opts.emisor;
    // A move without a sale leaves out precioUnitario and montoItem (docs/decisions.md §11).
  }

  // The purchase invoice withholds the whole IVA, and the notes that correct it do as well.
  if (isFacturaCompraType(tipoDte) || (target !== undefined && isFacturaCompraType(target.documentType.code) && codRefOf(c) === 3))
    detalle = detalle.map((l) => (l.exento ? l : { ...l, impuestoAdicional: IVA_RETENIDO_TOTAL }));

  if (isLiquidacionType(tipoDte)) {
    // Each line reports the total of what it liquidates (TOTAL LINEA, below zero for a credit note or
    // a liquidación liquidated) over CANTIDAD documents: montoItem without a price (docs/dte.md, 43).
    detalle = c.items.map((it) => {
      const t = liquidatedTypeOf(it.name);
      if (t === undefined) cannot(`line '${it.name}': no liquidated document type (TpoDocLiq) can be read from its name`);
      // A line with a price (none in the SII's sets so far) is an ordinary line; the engine computes it.
      const l: RequestLine = it.montoLinea === null ? lineOf(it, tipoDte, exempt) : { nombre: it.name, montoItem: it.montoLinea };
      if (it.montoLinea !== null && it.cantidad !== null) l.cantidad = it.cantidad;
      if (it.exento) l.exento = true;
      return t === undefined ? l : { ...l, tipoDocLiquidado: t };
    });
    body.comisiones = c.charges.map((ch) => ({ tipo: 'comision', glosa: ch.name, montoNeto: ch.montoLinea ?? 0 }));
  }

  if (c.exportacion || (exportacion && isExport)) {
    const x = c.exportacion;
    if (x) {
      const aduana = aduanaOf(x);
      exportacion = {
        moneda: x.moneda?.name ?? exportacion?.moneda ?? 'DOLAR USA',
        ...(x.formaPago ? { formaPago: x.formaPago.code } : {}),
        ...(Object.keys(aduana).length > 0 ? { aduana } : {}),
      };
      if (x.nacionalidad || x.paisReceptor)
        body.receptor = { ...body.receptor, extranjero: { nacionalidad: String((x.nacionalidad ?? x.paisReceptor)!.code) } };
      for (const ref of x.references) {
        referencias.push({
          tipoDocRef: ref.tipoDocRef ?? ref.name.slice(0, 3),
          folioRef: 1,
          fechaRef: opts.fecha,
          razonRef: ref.name.slice(0, 90),
        });
        limits.push(`customs reference '${ref.name}': the set gives no number; folioRef 1 is written`);
      }
      // Freight and insurance go in the customs fields and, says the set, as two global surcharges.
      descuentosGlobales = [
        ...(descuentosGlobales ?? []),
        ...(x.flete !== null ? [{ tipo: 'recargo' as const, valor: x.flete, unidad: '$' as const, glosa: 'FLETE' }] : []),
        ...(x.seguro !== null ? [{ tipo: 'recargo' as const, valor: x.seguro, unidad: '$' as const, glosa: 'SEGURO' }] : []),
      ];
      if (c.globalAdjustments.some((g) => /CLAUSULA/.test(g.text)))
        limits.push('a surcharge over the sale clause total is written as a percentage of the lines');
    }
    if (exportacion) body.exportacion = exportacion;
    // Services (a line value, no quantity): hotel services 4, others 3 (IndServicio of exports).
    if (c.items.length > 0 && c.items.every((i) => i.cantidad === null && i.montoLinea !== null))
      body.indServicio = c.items.some((i) => /ALOJAMIENTO|HOTEL/i.test(i.name)) ? 4 : 3;
    else if (referenced?.body.indServicio) body.indServicio = referenced.body.indServicio;
  }

  if (descuentosGlobales?.length) body.descuentosGlobales = descuentosGlobales;
  try {
    const totals = computeTotals(tipoDte as TipoDte, detalle, {
      descuentosGlobales: body.descuentosGlobales,
      moneda: body.exportacion?.moneda,
      comisiones: body.comisiones,
    });
    body.detalle = detalle.map((l, i) =>
      isGuiaType(tipoDte) && l.precioUnitario === undefined ? l : { ...l, montoItem: totals.lineas[i]! },
    );
    body.montoTotal = totals.montoTotal;
  } catch (e) {
    // The engine refuses what the route would refuse (a negative price…): said, never thrown.
    if (!isDteEngineError(e)) throw e;
    cannot(`the amounts cannot be computed: ${e.message}`);
    body.detalle = detalle.map((l) => ({ ...l, montoItem: 0 }));
  }
  return { caseId: c.id, body, pending, limits, unbuildable };
}

function lineOf(
  it: Pick<SetItem, 'name' | 'exento' | 'cantidad' | 'unidad' | 'precioUnitario' | 'montoLinea' | 'descuentoPct' | 'recargoPct'>,
  tipoDte: number,
  exempt: boolean,
) {
  const l: Omit<RequestLine, 'montoItem'> = { nombre: it.name };
  if (it.montoLinea !== null && it.precioUnitario === null) {
    // A line value without a price: the whole value over the quantity, or one unit of it.
    const qty = it.cantidad ?? 1;
    l.cantidad = qty;
    l.precioUnitario = Number((it.montoLinea / qty).toFixed(6));
  } else {
    if (it.cantidad !== null) l.cantidad = it.cantidad;
    if (it.precioUnitario !== null) l.precioUnitario = it.precioUnitario;
  }
  if (it.unidad !== null) l.unidad = it.unidad;
  if (it.exento && !exempt && !isLiquidacionType(tipoDte)) l.exento = true;
  if (it.exento && isLiquidacionType(tipoDte)) l.exento = true;
  if (it.descuentoPct !== null) l.descuentoPct = it.descuentoPct;
  if (it.recargoPct !== null) l.recargoPct = it.recargoPct;
  return l;
}

function aduanaOf(x: NonNullable<SetCase['exportacion']>): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  const put = (k: string, v: { code: number } | number | null) => {
    if (v !== null) a[k] = typeof v === 'number' ? v : v.code;
  };
  put('modalidadVenta', x.modalidadVenta);
  put('clausulaVenta', x.clausulaVenta);
  put('totalClausulaVenta', x.totalClausulaVenta);
  put('viaTransporte', x.viaTransporte);
  put('puertoEmbarque', x.puertoEmbarque);
  put('puertoDesembarque', x.puertoDesembarque);
  put('unidadTara', x.unidadTara);
  put('unidadPesoBruto', x.unidadPesoBruto);
  put('unidadPesoNeto', x.unidadPesoNeto);
  put('totalBultos', x.totalBultos);
  put('flete', x.flete);
  put('seguro', x.seguro);
  put('paisReceptor', x.paisReceptor);
  put('paisDestino', x.paisDestino);
  if (x.tipoBulto && x.totalBultos !== null) a.bultos = [{ tipo: x.tipoBulto.code, cantidad: x.totalBultos }];
  return a;
}
