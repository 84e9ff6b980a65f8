import type { GuiaEntry } from '../../../dte/index.ts';
import type { Dte } from '../../dte/index.ts';
import type { GuideBook } from '../set/set.types.ts';

/**
 * The guía book from the guías section's documents and the set's considerations (docs/certification.md,
 * "Books"; the guía book manual §2 d)): every guía with its transfer (IndTraslado → TpoOper), the one
 * "QUE SE FACTURO EN EL PERIODO" with the factura that invoiced it (TpoDocRef/FolioDocRef/FchDocRef),
 * the one "ANULADA" as cancelled after it was sent (Anulado 2: it was issued and sent with the set).
 */
export type IssuedGuia = Pick<Dte, 'folio' | 'fechaEmision' | 'receptor' | 'montoNeto' | 'iva' | 'montoTotal' | 'indTraslado'>;

export interface InvoicingFactura {
  tipoDoc: number;
  folio: number;
  fecha: string;
}

export function guideBookEntries(
  guias: readonly { caseId: string; dte: IssuedGuia }[],
  instructions: GuideBook['instructions'],
  factura: InvoicingFactura | null,
): GuiaEntry[] {
  return guias.map(({ caseId, dte }) => {
    const status = instructions.find((x) => x.caseId === caseId)?.status;
    const priced = dte.montoTotal > 0;
    return {
      folio: dte.folio,
      tpoOper: dte.indTraslado ?? undefined,
      ...(status === 'anulada' ? { anulado: 'guia' as const } : {}),
      fecha: dte.fechaEmision,
      rut: dte.receptor.rut,
      razonSocial: dte.receptor.razonSocial ?? undefined,
      ...(priced ? { neto: dte.montoNeto, iva: dte.iva, total: dte.montoTotal } : {}),
      ...(status === 'facturada' && factura ? { factura } : {}),
    };
  });
}
