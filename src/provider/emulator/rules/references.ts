import { dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import { readLines } from './lines.ts';
import { blocks, num, text } from './xml.ts';

/** Credit and debit notes, domestic and export: the Referencia zone is "1" for them [SII-FORMATO §2.1 table]. */
export const NOTES: ReadonlySet<number> = new Set([56, 61, 111, 112]);

export interface Reference {
  nro: string;
  tpoDocRef: string | undefined;
  folioRef: string | undefined;
  fchRef: string | undefined;
  /** 1 anula, 2 corrige texto, 3 corrige montos [F §E field 8]; boletas carry free text. */
  codRef: string | undefined;
  rutOtr: string | undefined;
  indGlobal: boolean;
}

export function readReferences(dte: string): Reference[] {
  return blocks(dte, 'Referencia').map((r, i) => ({
    nro: text(r, 'NroLinRef') ?? String(i + 1),
    tpoDocRef: text(r, 'TpoDocRef'),
    folioRef: text(r, 'FolioRef'),
    fchRef: text(r, 'FchRef'),
    codRef: text(r, 'CodRef'),
    rutOtr: text(r, 'RUTOtr'),
    indGlobal: text(r, 'IndGlobal') === '1',
  }));
}

/**
 * A reference to a tax document: TpoDocRef numeric outside 801-820 (orden de compra, contrato, DUS,
 * pasaporte…); alphabetic values are free references "no tributarios" [F §E field 2].
 */
export const isTaxDocument = (r: Reference): boolean => {
  const t = num(r.tpoDocRef);
  return t !== null && Number.isInteger(t) && (t < 800 || t > 899);
};

/** A note that only corrects text: its tax references all say CodRef 2. */
export function isTextCorrection(refs: Reference[]): boolean {
  const coded = refs.filter((r) => isTaxDocument(r) && r.codRef !== undefined);
  return coded.length > 0 && coded.every((r) => r.codRef === '2');
}

/**
 * Rejections of the Referencia zone [SII-FORMATO §E; REF §10]:
 * - REF-3-762 (ours): FchRef, "fecha del docto de referencia", after this document's FchEmis or
 *   after the day the SII receives it;
 * - on notes (56, 61, 111, 112): REF-3-415 without a reference to a tax document (the zone is "1"
 *   for them; "es obligatorio referenciar la factura de exportación que modifica"); REF-3-758 a
 *   tax reference without CodRef (CodRef is "1" for notes); REF-3-759 (ours) more than one tax
 *   document when one reference annuls or corrects text ("CASOS a) b) y c) DEBEN TENER UN ÚNICO
 *   DOCUMENTO DE REFERENCIA"), which also covers two CodRef 1; REF-3-761 (ours) a text correction
 *   with amounts (MontoItem "debe ser cero … Nota de Crédito tipo fe de erratas" [F §B field 38]).
 * References to non-tax documents (801-820, free text) are not judged on a note.
 */
export function referenceFindings(dte: string, tipoDte: number, receivedOn: string): Finding[] {
  const out: Finding[] = [];
  const refs = readReferences(dte);
  const fchEmis = text(dte, 'FchEmis');
  for (const r of refs) {
    if (!r.fchRef) continue;
    if (fchEmis && r.fchRef > fchEmis)
      out.push(finding('REF-3-762', `referencia ${r.nro}: FchRef ${r.fchRef} posterior a FchEmis ${fchEmis}`));
    else if (r.fchRef > receivedOn)
      out.push(finding('REF-3-762', `referencia ${r.nro}: FchRef ${r.fchRef} posterior a la recepción (${receivedOn})`));
  }
  if (!NOTES.has(tipoDte)) return out;
  const tax = refs.filter(isTaxDocument);
  if (tax.length === 0) out.push(finding('REF-3-415', 'nota de crédito o débito sin referencia a documento tributario'));
  for (const r of tax) {
    if (r.codRef === undefined || r.codRef === '')
      out.push(finding('REF-3-758', `referencia ${r.nro}: TpoDocRef ${r.tpoDocRef} folio ${r.folioRef}`));
  }
  if (tax.length > 1 && tax.some((r) => r.codRef === '1' || r.codRef === '2')) {
    out.push(
      finding('REF-3-759', `${tax.length} documentos tributarios referenciados (CodRef ${tax.map((r) => r.codRef ?? '-').join(', ')})`),
    );
  }
  if (isTextCorrection(refs)) {
    const total = dec(text(text(dte, 'Totales') ?? '', 'MntTotal'));
    const lines = readLines(dte).filter((l) => l.monto !== null && l.monto !== 0n);
    if ((total !== null && total !== 0n) || lines.length > 0) {
      out.push(
        finding(
          'REF-3-761',
          `MntTotal ${text(text(dte, 'Totales') ?? '', 'MntTotal')}${lines.length ? `, ${lines.length} línea(s) con monto` : ''}`,
        ),
      );
    }
  }
  return out;
}

/**
 * REF-2-780 [REF §10, a reparo]: a note that annuls (CodRef 1) carries the amounts of the document
 * it annuls — its MntTotal equals the referenced document's as the SII received it.
 */
export function annulmentFinding(
  noteTotal: number | null,
  referencedTotal: number | null,
  ref: { tipoDte: number; folio: number },
): Finding | null {
  if (noteTotal === null || referencedTotal === null || noteTotal === referencedTotal) return null;
  return finding('REF-2-780', `MntTotal ${noteTotal}, tipo ${ref.tipoDte} folio ${ref.folio} recibido con ${referencedTotal}`);
}
