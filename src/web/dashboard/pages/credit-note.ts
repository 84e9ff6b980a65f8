import {
  computeTotals,
  creditNoteFor,
  lookupType,
  NOTA_DE_CREDITO,
  pricesGrossByDefault,
  RUT_ANONYMOUS,
  typesWhere,
} from '../../../dte/index.ts';
import type { DteService } from '../../../modules/dte/index.ts';
import type { DteRecord } from './issuing.ts';

/**
 * The nota de crédito (61) the dashboard issues from a document (docs/dte.md "The SII's rules"):
 * one reference to the document (its type, folio and date), with
 * - codRef 1 (anula): the document's own lines and global discounts, so its total is the
 *   document's (the service checks it: reference_amount_mismatch);
 * - codRef 3 (corrige montos): the lines the user credits, with the quantity and unit price given.
 * Amounts are computed by the engine's own rule (computeTotals), never by hand; the service
 * validates the whole document again before a folio is taken. Pure: no I/O.
 */
export type CreateDte = Parameters<DteService['create']>[1];

/**
 * Documents the dashboard's nota de crédito can reference: those the catalogue says it credits
 * (facturas, boletas and notas de débito; exports take their own note).
 */
export const CREDITABLE_TYPES: readonly number[] = typesWhere((t) => t.creditedBy === NOTA_DE_CREDITO);

export const canCredit = (d: Pick<DteRecord, 'tipoDte' | 'status'>): boolean =>
  creditNoteFor(d.tipoDte) === NOTA_DE_CREDITO && (d.status === 'accepted' || d.status === 'accepted_with_objections');

export interface CreditNoteChoice {
  codRef: 1 | 3;
  razonRef: string;
  /** Per line of the document, in order (codRef 3): what is credited; cantidad 0 leaves the line out. */
  lines?: readonly { cantidad: number; precioUnitario: number }[];
  /** Needed when the document went to the anonymous consumer (a boleta): a 61 names its receptor. */
  receptor?: { rut: string; razonSocial: string } | undefined;
}

type Line = CreateDte['detalle'][number];

/** A factura or boleta exenta: every line exempt (the catalogue's amount family). */
const isExemptType = (t: number): boolean => {
  const amounts = lookupType(t)?.amounts;
  return amounts === 'exento' || amounts === 'boleta_exenta';
};

const defined = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;

/** A boleta afecta's prices include IVA (unless indMontoNeto); the note keeps them so, with montoBruto. */
const grossPrices = (d: DteRecord): boolean => (pricesGrossByDefault(d.tipoDte) ? !d.indMontoNeto : d.montoBruto);

function receptorOf(d: DteRecord, given: CreditNoteChoice['receptor']): CreateDte['receptor'] {
  if (given) return { rut: given.rut, razonSocial: given.razonSocial };
  const r = d.receptor;
  return defined({
    rut: r.rut,
    razonSocial: r.razonSocial ?? undefined,
    giro: r.giro ?? undefined,
    direccion: r.direccion ?? undefined,
    comuna: r.comuna ?? undefined,
    ciudad: r.ciudad ?? undefined,
    contacto: r.contacto ?? undefined,
    correo: r.correo ?? undefined,
  }) as CreateDte['receptor'];
}

/** The document's line as a create line: what it was issued with (montoItem is recomputed below). */
function copyLine(l: DteRecord['detalle'][number], tipoSource: number): Line {
  return defined({
    nombre: l.nombre,
    cantidad: l.cantidad ?? undefined,
    precioUnitario: l.precioUnitario ?? undefined,
    montoItem: l.montoItem,
    // Every line of an exempt type is exempt; on the note that has to be said.
    exento: l.exento || isExemptType(tipoSource) ? true : undefined,
    unidad: l.unidad ?? undefined,
    descripcion: l.descripcion ?? undefined,
    codigos: l.codigos?.length ? l.codigos : undefined,
    descuentoPct: l.descuentoPct ?? undefined,
    descuentoMonto: l.descuentoMonto ?? undefined,
    recargoPct: l.recargoPct ?? undefined,
    recargoMonto: l.recargoMonto ?? undefined,
    impuestoAdicional: l.impuestoAdicional?.length ? l.impuestoAdicional : undefined,
  }) as Line;
}

export function creditNoteBody(d: DteRecord, choice: CreditNoteChoice): CreateDte {
  const montoBruto = grossPrices(d);
  let detalle: Line[];
  let descuentosGlobales: CreateDte['descuentosGlobales'];
  if (choice.codRef === 1) {
    detalle = d.detalle.map((l) => copyLine(l, d.tipoDte));
    descuentosGlobales = d.descuentosGlobales?.length ? (d.descuentosGlobales as CreateDte['descuentosGlobales']) : undefined;
  } else {
    detalle = [];
    d.detalle.forEach((l, i) => {
      const c = choice.lines?.[i];
      if (!c || c.cantidad <= 0) return;
      const base = copyLine(l, d.tipoDte);
      // The credited part has its own quantity and price; the document's line discounts do not carry over.
      detalle.push(
        defined({
          ...base,
          cantidad: c.cantidad,
          precioUnitario: c.precioUnitario,
          descuentoPct: undefined,
          descuentoMonto: undefined,
          recargoPct: undefined,
          recargoMonto: undefined,
        }) as Line,
      );
    });
  }
  const totals = computeTotals(NOTA_DE_CREDITO, detalle, { montoBruto, descuentosGlobales });
  return defined({
    tipoDte: NOTA_DE_CREDITO,
    receptor: receptorOf(d, choice.receptor),
    referencias: [{ tipoDocRef: d.tipoDte, folioRef: d.folio, fechaRef: d.fechaEmision, codRef: choice.codRef, razonRef: choice.razonRef }],
    detalle: detalle.map((l, i) => ({ ...l, montoItem: totals.lineas[i]! })),
    montoBruto: montoBruto || undefined,
    descuentosGlobales,
    montoTotal: totals.montoTotal,
  }) as CreateDte;
}

/**
 * Whether the note must be given its receptor: the document went to the anonymous consumer (a
 * 61 cannot, HED-3-311), or to a receptor without a name (a boleta's may have none; a 61 needs it).
 */
export const needsReceptor = (d: DteRecord): boolean => d.receptor.rut === RUT_ANONYMOUS || !d.receptor.razonSocial;
