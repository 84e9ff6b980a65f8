import { readPrintable, type PrintableDte } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import { CEDIBLE_TYPES, isCedibleType, renderDtePdf, type PdfFormat } from '../../pdf/index.ts';
import type { TenantRef, TenantRow } from '../tenants/index.ts';

/**
 * The printed document (docs/decisions.md §12, docs/dte.md "The printed document"): read from the signed
 * XML as stored — the legal document, so the PDF shows what was signed, and the timbre carries
 * the TED bytes sliced out of it, never rebuilt — plus what only the tenant knows: its logo, its
 * SII unit and its resolution. Available from creation, whatever the document's state.
 */
export interface PdfDeps {
  /** The tenant's stored logo (a canonical PNG), or null: the tenants module's port. */
  tenantLogo: (tenant: TenantRef) => Promise<Buffer | null>;
}

export interface DtePdf {
  pdf: Buffer;
  filename: string;
}

/**
 * "S.I.I. - {unidad}": the SII office of the issuer's domicile — the one resolved when the
 * document was issued (its own `emisor.unidadSii`, else the tenant's; docs/dte.md "Issuer data").
 * Without one, the issuer's city as signed in the document (CiudadOrigen), else its comuna, else
 * the tenant's city: the office is named after the city or commune in most of the country.
 */
function unidadSiiFor(tenant: TenantRow, doc: PrintableDte, stored: string | null): string {
  return stored || doc.emisor.ciudad || doc.emisor.comuna || tenant.ciudad;
}

/** `printable`: the signed bytes of one of the tenant's documents and its SII office, or 404 (dte.read.ts). */
export function createDtePdf(
  deps: PdfDeps & { printable: (tenant: TenantRef, id: string) => Promise<{ xml: Buffer; unidadSii: string | null }> },
) {
  return {
    async pdf(tenant: TenantRow, id: string, opts: { formato: PdfFormat; cedible: boolean }): Promise<DtePdf> {
      const [{ xml, unidadSii }, logo] = await Promise.all([deps.printable(tenant, id), deps.tenantLogo(tenant)]);
      const doc = readPrintable(xml);
      if (opts.cedible && !isCedibleType(doc.tipoDte))
        throw errors.unprocessable(
          'not_cedible',
          `A type ${doc.tipoDte} document has no cedible copy: only ${CEDIBLE_TYPES.join(', ')} do. Ask without cedible=true.`,
          { param: 'cedible' },
        );
      const pdf = await renderDtePdf(doc, {
        formato: opts.formato,
        cedible: opts.cedible,
        unidadSii: unidadSiiFor(tenant, doc, unidadSii),
        resolucion: { numero: tenant.numero_resolucion, fecha: tenant.fecha_resolucion },
        logo,
      });
      const suffix = `${opts.formato === '80mm' ? '-80mm' : ''}${opts.cedible ? '-cedible' : ''}`;
      return { pdf, filename: `DTE-T${doc.tipoDte}-F${doc.folio}${suffix}.pdf` };
    },
  };
}
