import type { PreparedSigner } from '../xmldsig.ts';
import type { SignerInput } from '../types.ts';

/**
 * What every book's carátula and signature need (docs/certification.md, "Books"): the issuer, the period, the
 * resolution, the notification folio of a special book, and the signer.
 */
export interface BookHeader {
  rutEmisor: string;
  /** Holder of the signing certificate; defaults to the RUT read from the certificate. */
  rutEnvia?: string | undefined;
  /** AAAA-MM. */
  periodo: string;
  fechaResolucion: string;
  numeroResolucion: number;
  /** FolioNotificacion: in certification, the attention number of the set's book section. */
  folioNotificacion: number;
  signer: SignerInput | PreparedSigner;
  now: Date;
  timeZone?: string;
  /** EnvioLibro/@ID; default "EnvioLibro". */
  id?: string;
}

/** How a purchase's IVA is registered (IECV manual §3.4 field 15; casos especiales I.1, I.2). */
export type IvaTreatment = { kind: 'recuperable' } | { kind: 'uso_comun' } | { kind: 'no_recuperable'; codigo: 1 | 2 | 3 | 4 | 9 };

/** One document of a purchase or sales book, as plain amounts (whole pesos). */
export interface BookEntry {
  tipoDoc: number;
  folio: number;
  /** Folio cancelled before it was sent (IECV field 4): only type, folio and the mark are written. */
  anulado?: boolean;
  fecha: string;
  rut: string;
  /** Required for paper documents; written when given. */
  razonSocial?: string | undefined;
  /** IVA rate in percent; default 19. */
  tasaIva?: number;
  exento: number;
  neto: number;
  /** The document's whole IVA (tasa × neto, as on the document). */
  iva: number;
  /** Purchases only; default recuperable. */
  ivaTreatment?: IvaTreatment;
  /** Additional taxes with credit (OtrosImp), as on the document. */
  otrosImpuestos?: { codigo: number; tasa?: number | undefined; monto: number }[];
  /**
   * IVA withheld in full by the buyer (factura de compra): subtracted from the total; written
   * as IVARetTotal in a sales book and as OtrosImp code 15 in a purchase book (IECV §3.4 field 21).
   */
  ivaRetenidoTotal?: number;
  /** The referenced document (notes): TpoDocRef/FolioDocRef. */
  referencia?: { tipoDoc: number; folio: number } | undefined;
  /** When given, must equal the total computed by the manual's formula. */
  total?: number | undefined;
}

export interface BuiltBook<T> {
  xml: Buffer;
  id: string;
  rutEnvia: string;
  timestamp: string;
  totals: T;
}
