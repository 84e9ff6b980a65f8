import {
  buildLibroCompraVenta,
  buildLibroGuia,
  guiaTotals,
  isDteEngineError,
  libroCompraVentaTotals,
  siiDate,
  type BookEntry,
  type GuiaEntry,
  type LibroGuiaTotals,
  type PreparedSigner,
  type TypeTotals,
} from '../../../dte/index.ts';
import type { Db } from '../../../db/types.ts';
import { errors } from '../../../errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { TenantRow } from '../../tenants/index.ts';
import type { Dte } from '../../dte/index.ts';
import { certificationStore } from '../certification.store.ts';
import type { ParsedSet, SectionKind } from '../set/set.types.ts';
import { documentTypeCode } from '../set/document-types.ts';
import type { BookEnvio, BookSend } from './book-send.ts';
import { guideBookEntries } from './guide-book.ts';
import { purchaseBookInput } from './purchase-book.ts';
import { salesBookEntries } from './sales-book.ts';

/**
 * The set's three books (docs/certification.md, "Books"): what each holds and its totals, and the
 * signed file. The purchase book comes from the set alone; the sales and guía books from the
 * documents made for the set's cases (case id → DTE id, kept by the documents step); until they are
 * all made, those books say which cases they wait for.
 */
export type BookKind = 'ventas' | 'compras' | 'guias';
export const BOOK_KINDS: readonly BookKind[] = ['ventas', 'compras', 'guias'];

export interface BookOptions {
  /** The entries' date (AAAA-MM-DD); its month is the book's period. Default: today in Chile. */
  fecha?: string | undefined;
  /** The supplier of the purchase list (the set names none): default the tenant itself. */
  proveedorRut?: string | undefined;
  proveedorRazonSocial?: string | undefined;
  /** FolioNotificacion; default the attention number of the set's book section. */
  folioNotificacion?: number | undefined;
  /** The folio of the factura that invoiced the guía the set says was invoiced. */
  facturaFolio?: number | undefined;
  facturaFecha?: string | undefined;
}

export interface CertificationBook {
  object: 'certification_book';
  setId: string;
  kind: BookKind;
  /** The book can be built now: every document it needs exists. */
  ready: boolean;
  /** Case ids whose documents the book still waits for. */
  missingCases: string[];
  folioNotificacion: number;
  periodo: string;
  factorProporcionalidad: number | null;
  entries: (BookEntry | GuiaEntry)[];
  totals: TypeTotals[] | LibroGuiaTotals | null;
}

export interface CertificationBooksDeps {
  db: Db;
  clock: Clock;
  signers: { get(accountId: string, tenantId: string): Promise<{ signer: PreparedSigner }> };
  dtes: { get(tenant: TenantRow, id: string): Promise<Dte> };
  /** Sending books to the SII (book-send.ts); absent: books are not sent, `envio` is null. */
  sends?: BookSend | undefined;
  /** Case id → DTE id of the documents made for a set; default the ones POST …/sets/{setId}/documents recorded. */
  documents?: (tx: Db, accountId: string, setId: string) => Promise<Map<string, string>>;
}

/** The sections whose documents a book is made of: the básico (or the exenta when there is none), the guías. */
function sourceSection(set: ParsedSet, kind: 'ventas' | 'guias'): SectionKind | null {
  const has = (k: SectionKind) => set.sections.some((s) => s.kind === k);
  if (kind === 'guias') return has('guias') ? 'guias' : null;
  return has('basico') ? 'basico' : has('exenta') ? 'exenta' : null;
}

const bookSection: Record<BookKind, SectionKind> = { ventas: 'libro_ventas', compras: 'libro_compras', guias: 'libro_guias' };

function engineError(e: unknown): unknown {
  if (!isDteEngineError(e)) return e;
  const opts = e.param ? { param: e.param } : {};
  if (e.code === 'certificate_expired' || e.code === 'certificate_not_yet_valid' || e.code === 'rut_envia_unknown')
    return errors.conflict(e.code, `${e.message}.`, { param: 'certificate' });
  return errors.unprocessable(e.code, e.message, opts);
}

export function createCertificationBooks(deps: CertificationBooksDeps) {
  const { db, clock } = deps;
  const documents = deps.documents ?? ((tx: Db, accountId: string, setId: string) => certificationStore.documents(tx, accountId, setId));

  async function describe(tenant: TenantRow, setId: string, kind: BookKind, o: BookOptions): Promise<CertificationBook> {
    const row = await certificationStore.get(db, tenant.account_id, tenant.id, setId);
    if (!row) throw errors.notFound('certification_set', setId, 'setId');
    const set = row.parsed;
    const section = set.sections.find((s) => s.kind === bookSection[kind]);
    if (!section) throw errors.unprocessable('certification_book_not_in_set', `This set asks for no ${kind} book.`, { param: 'kind' });
    const fecha = o.fecha ?? siiDate(clock.now());
    const base = {
      object: 'certification_book' as const,
      setId: row.id,
      kind,
      folioNotificacion: o.folioNotificacion ?? Number(section.attentionNumber),
      periodo: fecha.slice(0, 7),
    };

    if (kind === 'compras') {
      const input = purchaseBookInput(set, {
        fecha,
        proveedor: { rut: o.proveedorRut ?? tenant.rut_empresa, razonSocial: o.proveedorRazonSocial ?? tenant.razon_social },
      });
      if (!input) throw errors.unprocessable('certification_book_not_in_set', 'This set has no purchase list.', { param: 'kind' });
      const { totals } = tryEngine(() => libroCompraVentaTotals({ operacion: 'COMPRA', ...input }));
      return {
        ...base,
        ready: true,
        missingCases: [],
        factorProporcionalidad: input.factorProporcionalidad,
        entries: input.entries,
        totals,
      };
    }

    const from = sourceSection(set, kind);
    const caseIds = set.sections.find((s) => s.kind === from)?.caseIds ?? [];
    const made = await documents(db, tenant.account_id, row.id);
    const missingCases = caseIds.filter((c) => !made.has(c));
    const empty = { ...base, ready: false, missingCases, factorProporcionalidad: null, entries: [], totals: null };
    if (caseIds.length === 0 || missingCases.length > 0) return empty;
    const docs = await Promise.all(caseIds.map(async (caseId) => ({ caseId, dte: await deps.dtes.get(tenant, made.get(caseId)!) })));
    // The book's month is its documents' (made on one day with the set) unless fecha says otherwise.
    const periodo = o.fecha?.slice(0, 7) ?? docs[0]!.dte.fechaEmision.slice(0, 7);
    if (kind === 'ventas') {
      const entries = tryEngine(() => salesBookEntries(docs.map((d) => d.dte)));
      const { totals } = tryEngine(() => libroCompraVentaTotals({ operacion: 'VENTA', entries }));
      return { ...empty, periodo, ready: true, entries, totals };
    }
    const factura =
      o.facturaFolio === undefined
        ? null
        : { tipoDoc: documentTypeCode('FACTURA ELECTRONICA')!, folio: o.facturaFolio, fecha: o.facturaFecha ?? fecha };
    const entries = guideBookEntries(docs, section.guideBook?.instructions ?? [], factura);
    return { ...empty, periodo, ready: true, entries, totals: guiaTotals(entries) };
  }

  /** The signed book (ISO-8859-1): 409 certification_documents_missing while its documents are not all made. */
  async function xml(tenant: TenantRow, setId: string, kind: BookKind, o: BookOptions): Promise<Buffer> {
    const book = await describe(tenant, setId, kind, o);
    if (!book.ready)
      throw errors.conflict(
        'certification_documents_missing',
        `Books asked for before their documents exist: make the set's documents first (missing: ${book.missingCases.join(', ') || 'every case'}).`,
        { details: { missingCases: book.missingCases } },
      );
    const { signer } = await deps.signers.get(tenant.account_id, tenant.id);
    const header = {
      rutEmisor: tenant.rut_empresa,
      periodo: book.periodo,
      fechaResolucion: tenant.fecha_resolucion,
      numeroResolucion: tenant.numero_resolucion,
      folioNotificacion: book.folioNotificacion,
      signer,
      now: clock.now(),
    };
    if (kind === 'guias') return tryEngine(() => buildLibroGuia({ ...header, entries: book.entries as GuiaEntry[] })).xml;
    return tryEngine(() =>
      buildLibroCompraVenta({
        ...header,
        operacion: kind === 'compras' ? 'COMPRA' : 'VENTA',
        entries: book.entries as BookEntry[],
        factorProporcionalidad: book.factorProporcionalidad,
      }),
    ).xml;
  }

  return {
    describe,
    xml,

    /** The book with its latest send to the SII (`envio`, null when never sent). */
    async show(tenant: TenantRow, setId: string, kind: BookKind, o: BookOptions): Promise<CertificationBook & { envio: BookEnvio | null }> {
      const book = await describe(tenant, setId, kind, o);
      return { ...book, envio: deps.sends ? await deps.sends.envio(tenant, book.setId, kind) : null };
    },

    /** Builds the signed book as `xml` does and uploads it (book-send.ts): once per set, kind and FolioNotificacion. */
    async send(tenant: TenantRow, setId: string, kind: BookKind, o: BookOptions): Promise<BookEnvio> {
      const book = await describe(tenant, setId, kind, o);
      if (!deps.sends)
        throw errors.conflict(
          'certification_book_upload_unsupported',
          "Books are not sent here: download …/xml and upload it in the SII's site.",
        );
      return deps.sends.send(tenant, {
        setId: book.setId,
        kind,
        folioNotificacion: book.folioNotificacion,
        build: () => xml(tenant, setId, kind, o),
      });
    },
  };
}

function tryEngine<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw engineError(e);
  }
}

export type CertificationBooks = ReturnType<typeof createCertificationBooks>;
