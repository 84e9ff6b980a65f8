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

export interface StoredDocument {
  receptor: {
    rut: string;
    razonSocial: string | null;
    giro: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
  };
  detalle: {
    nombre: string;
    /** As given: the written QtyItem/PrcItem are their decimal text. */
    cantidad: number;
    precioUnitario: number;
    montoItem: number;
    exento: boolean;
    unidad: string | null;
    descripcion: string | null;
  }[];
  referencias: {
    tipoDocRef: string;
    folioRef: string;
    fechaRef: string;
    codRef: number | null;
    razonRef: string | null;
  }[];
  formaPago: number | null;
}

/** Validates and normalises `input` and computes its totals. Throws DteEngineError on any invalid input. */
export function prepareDte(input: DocumentInput): PreparedDte {
  const document = normalizeDocument(input);
  const r = document.receptor;
  return {
    tipoDte: document.tipoDte,
    fechaEmision: document.fechaEmision,
    document,
    totals: document.totals,
    stored: {
      receptor: {
        rut: r.rut,
        razonSocial: r.razonSocial ?? null,
        giro: r.giro ?? null,
        direccion: r.direccion ?? null,
        comuna: r.comuna ?? null,
        ciudad: r.ciudad ?? null,
      },
      detalle: document.detalle.map((d, i) => ({
        nombre: d.nombre,
        cantidad: input.detalle[i]!.cantidad,
        precioUnitario: input.detalle[i]!.precioUnitario,
        montoItem: d.montoItem,
        exento: d.exento,
        unidad: d.unidad ?? null,
        descripcion: d.descripcion ?? null,
      })),
      referencias: document.referencias.map((x) => ({
        tipoDocRef: x.tipoDocRef,
        folioRef: x.folioRef,
        fechaRef: x.fechaRef,
        codRef: x.codRef ?? null,
        razonRef: x.razonRef ?? null,
      })),
      formaPago: document.formaPago ?? null,
    },
  };
}
