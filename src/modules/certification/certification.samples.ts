import type { Db } from '../../db/types.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { buildZip, type ZipEntry } from '../../lib/zip.ts';
import { printsCedibleCopy } from '../../pdf/index.ts';
import type { DteService } from '../dte/index.ts';
import type { TenantRow } from '../tenants/index.ts';
import { certificationStore } from './certification.store.ts';
import { DOCUMENT_SECTIONS } from './set/case-request.ts';

/**
 * The printed samples of a set (docs/certification.md, "Printed samples"): every document made for
 * the set, printed as `GET …/dte/{dteId}/pdf` prints it (letter size, one page, the timbre's PDF417
 * from the signed TED), named by case, its cedible copy beside it where the SII's printed-samples
 * manual asks for one, all in one ZIP to upload at the SII's "Upload de Muestras Impresas".
 * Nothing is rendered until every document case has its document: a partial download would be
 * uploaded as if whole (the SII keeps every upload).
 */
export interface SamplesDeps {
  db: Db;
  clock: Clock;
  dte: Pick<DteService, 'get' | 'pdf'>;
}

export interface PrintedSamples {
  zip: Buffer;
  filename: string;
  files: string[];
}

export function createPrintedSamples({ db, clock, dte }: SamplesDeps) {
  return async function printedSamples(tenant: TenantRow, setId: string): Promise<PrintedSamples> {
    const row = await certificationStore.get(db, tenant.account_id, tenant.id, setId);
    if (!row) throw errors.notFound('certification_set', setId, 'setId');
    const made = await certificationStore.documents(db, tenant.account_id, row.id);
    const cases = row.parsed.cases.filter((c) => DOCUMENT_SECTIONS.includes(c.section));
    const missingCases = cases.filter((c) => !made.has(c.id)).map((c) => c.id);
    if (cases.length === 0 || missingCases.length > 0)
      throw errors.conflict(
        'certification_documents_missing',
        `The printed samples are of the set's documents, and ${missingCases.length || 'none'} of them ${missingCases.length === 1 ? 'is' : 'are'} not made yet: POST …/certification/sets/{setId}/documents first.`,
        { param: 'setId', details: { missingCases } },
      );
    const entries: ZipEntry[] = [];
    // One at a time: each render holds a PDF in memory, and a set has a few dozen.
    for (const c of cases) {
      const id = made.get(c.id)!;
      const doc = await dte.get(tenant, id);
      const name = `CASO-${c.id}`;
      entries.push({ name: `${name}.pdf`, data: (await dte.pdf(tenant, id, { formato: 'carta', cedible: false })).pdf });
      if (printsCedibleCopy(doc.tipoDte, doc.indTraslado))
        entries.push({ name: `${name}-CEDIBLE.pdf`, data: (await dte.pdf(tenant, id, { formato: 'carta', cedible: true })).pdf });
    }
    const attention = row.parsed.sections[0]?.attentionNumber ?? row.id;
    return {
      zip: buildZip(entries, clock.now()),
      filename: `muestras-impresas-${attention}.zip`,
      files: entries.map((e) => e.name),
    };
  };
}
