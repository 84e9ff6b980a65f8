import type { Totals } from './amounts.ts';
import { normalizeDocument } from './normalize.ts';
import type { DocumentInput, NormalizedDocument } from './normalize.ts';
import type { TipoDte } from './types.ts';

/**
 * Pipeline step 1 (see README.md, "Pipeline"): everything that can be known about a document
 * before it has a folio. A caller that allocates folios prepares first, so a bad input never
 * costs a folio, then hands the result to `issueDte` with the folio it got (dte-xml.ts).
 */
export interface PreparedDte {
  tipoDte: TipoDte;
  fechaEmision: string;
  /** Validated, cleaned, in SII form, with totals; the strategy that writes it rides along. */
  document: NormalizedDocument;
  totals: Totals;
  /** The document as a DTE record keeps it (receptor in SII form, lines with their amounts). */
  stored: StoredDocument;
}

/** The fields of docs/decisions.md §11 beyond receptor, lines and references, as a DTE record echoes them. */
export interface StoredExtras {
  emisor: {
    telefono: string | null;
    correo: string | null;
    sucursal: string | null;
    codigoSucursal: number | null;
    vendedor: string | null;
  };
  indServicio: number | null;
  indTraslado: number | null;
  tipoDespacho: number | null;
  montoBruto: boolean;
  indMontoNeto: boolean;
  fechaVencimiento: string | null;
  medioPago: string | null;
  terminosPago: string | null;
  terminosPagoDias: number | null;
  pagos: { fecha: string; monto: number; glosa: string | null }[];
  descuentosGlobales: {
    tipo: 'descuento' | 'recargo';
    valor: number;
    unidad: '%' | '$';
    glosa: string | null;
    exento: boolean;
    monto: number;
  }[];
  transporte: {
    patente: string | null;
    rutTransportista: string | null;
    rutChofer: string | null;
    nombreChofer: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
  } | null;
  exportacion: {
    moneda: string;
    otraMoneda: { moneda: string; tipoCambio: number } | null;
    formaPago: number | null;
    aduana: Record<string, unknown> | null;
  } | null;
  comisiones: { tipo: 'comision' | 'otro'; glosa: string; tasa: number | null; montoNeto: number; montoExento: number; iva: number }[];
}

/** Computed totals beyond neto, exento, IVA and total. */
export interface StoredTotals {
  impuestos: { tipo: number; tasa: number; monto: number }[];
  ivaRetenido: number;
  ivaNoRetenido: number;
  montoNoFacturable: number;
  garantiaDeposito: number;
  comisiones: { neto: number; exento: number; iva: number } | null;
  otraMoneda: { moneda: string; tipoCambio: number; montoExento: number; montoTotal: number } | null;
}

export interface StoredDocument {
  receptor: {
    rut: string;
    razonSocial: string | null;
    giro: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
    contacto?: string | null;
    correo?: string | null;
    extranjero?: { nacionalidad: string | null; numeroId: string | null } | null;
  };
  detalle: {
    nombre: string;
    /** As given: the written QtyItem/PrcItem are their decimal text. Null on a guía line without prices. */
    cantidad: number | null;
    precioUnitario: number | null;
    montoItem: number;
    exento: boolean;
    unidad: string | null;
    descripcion: string | null;
    indExe?: number | null;
    codigos?: { tipo: string; valor: string }[];
    descuentoPct?: number | null;
    descuentoMonto?: number | null;
    recargoPct?: number | null;
    recargoMonto?: number | null;
    impuestoAdicional?: number[];
    retenedor?: boolean;
    tipoDocLiquidado?: string | null;
  }[];
  referencias: {
    tipoDocRef: string;
    folioRef: string;
    fechaRef: string;
    codRef: number | null;
    razonRef: string | null;
    indGlobal?: boolean;
    rutOtro?: string | null;
  }[];
  formaPago: number | null;
  extras: StoredExtras;
  totales: StoredTotals;
}

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const num = (v: string | undefined): number | null => (v === undefined ? null : Number(v));

function storedExtras(doc: NormalizedDocument): StoredExtras {
  const e = doc.emisor;
  const t = doc.transporte;
  const x = doc.exportacion;
  return {
    emisor: {
      telefono: orNull(e.telefono),
      correo: orNull(e.correo),
      sucursal: orNull(e.sucursal),
      codigoSucursal: orNull(e.codigoSucursal),
      vendedor: orNull(e.vendedor),
    },
    indServicio: orNull(doc.indServicio),
    indTraslado: orNull(doc.indTraslado),
    tipoDespacho: orNull(doc.tipoDespacho),
    montoBruto: doc.montoBruto,
    indMontoNeto: doc.indMontoNeto,
    fechaVencimiento: orNull(doc.fechaVencimiento),
    medioPago: orNull(doc.medioPago),
    terminosPago: orNull(doc.terminosPago),
    terminosPagoDias: orNull(doc.terminosPagoDias),
    pagos: doc.pagos.map((p) => ({ fecha: p.fecha, monto: p.monto, glosa: orNull(p.glosa) })),
    descuentosGlobales: doc.descuentosGlobales.map((g) => ({
      tipo: g.tipo === 'D' ? 'descuento' : 'recargo',
      valor: Number(g.valor),
      unidad: g.unidad,
      glosa: orNull(g.glosa),
      exento: g.exento,
      monto: g.monto,
    })),
    transporte: t
      ? {
          patente: orNull(t.patente),
          rutTransportista: orNull(t.rutTransportista),
          rutChofer: t.chofer?.rut ?? null,
          nombreChofer: t.chofer?.nombre ?? null,
          direccion: orNull(t.direccion),
          comuna: orNull(t.comuna),
          ciudad: orNull(t.ciudad),
        }
      : null,
    exportacion: x
      ? {
          moneda: x.moneda,
          otraMoneda: x.otraMoneda ? { moneda: x.otraMoneda.moneda, tipoCambio: Number(x.otraMoneda.tipoCambio) } : null,
          formaPago: orNull(x.formaPago),
          aduana: x.aduana
            ? {
                ...Object.fromEntries(Object.entries(x.aduana.fields).filter(([, v]) => v !== undefined)),
                ...(x.aduana.bultos.length ? { bultos: x.aduana.bultos } : {}),
              }
            : null,
        }
      : null,
    comisiones: doc.comisiones.map((c) => ({
      tipo: c.tipo === 'C' ? 'comision' : 'otro',
      glosa: c.glosa,
      tasa: num(c.tasa),
      montoNeto: c.montoNeto,
      montoExento: c.montoExento,
      iva: c.iva,
    })),
  };
}

/** Validates and normalises `input` and computes its totals. Throws DteEngineError on any invalid input. */
export function prepareDte(input: DocumentInput): PreparedDte {
  const document = normalizeDocument(input);
  const r = document.receptor;
  const t = document.totals;
  return {
    tipoDte: document.tipoDte,
    fechaEmision: document.fechaEmision,
    document,
    totals: t,
    stored: {
      receptor: {
        rut: r.rut,
        razonSocial: r.razonSocial ?? null,
        giro: r.giro ?? null,
        direccion: r.direccion ?? null,
        comuna: r.comuna ?? null,
        ciudad: r.ciudad ?? null,
        contacto: r.contacto ?? null,
        correo: r.correo ?? null,
        extranjero: r.extranjero ? { nacionalidad: r.extranjero.nacionalidad ?? null, numeroId: r.extranjero.numeroId ?? null } : null,
      },
      detalle: document.detalle.map((d, i) => ({
        nombre: d.nombre,
        cantidad: input.detalle[i]!.cantidad ?? null,
        precioUnitario: input.detalle[i]!.precioUnitario ?? null,
        montoItem: d.montoItem,
        exento: d.exento,
        unidad: d.unidad ?? null,
        descripcion: d.descripcion ?? null,
        indExe: d.indExe ?? null,
        codigos: d.codigos,
        descuentoPct: num(d.descuentoPct),
        descuentoMonto: d.descuentoMonto ?? null,
        recargoPct: num(d.recargoPct),
        recargoMonto: d.recargoMonto ?? null,
        impuestoAdicional: d.impuestos,
        retenedor: d.retenedor,
        tipoDocLiquidado: d.tipoDocLiquidado ?? null,
      })),
      referencias: document.referencias.map((x) => ({
        tipoDocRef: x.tipoDocRef,
        folioRef: x.folioRef,
        fechaRef: x.fechaRef,
        codRef: x.codRef ?? null,
        razonRef: x.razonRef ?? null,
        indGlobal: x.indGlobal,
        rutOtro: x.rutOtro ?? null,
      })),
      formaPago: document.formaPago ?? null,
      extras: storedExtras(document),
      totales: {
        impuestos: t.impuestos.map(({ tipo, tasa, monto }) => ({ tipo, tasa, monto })),
        ivaRetenido: t.ivaRetenido,
        ivaNoRetenido: t.ivaNoRetenido,
        montoNoFacturable: t.montoNoFacturable,
        garantiaDeposito: t.garantiaDeposito,
        comisiones: t.comisiones,
        otraMoneda: t.otraMoneda,
      },
    },
  };
}
