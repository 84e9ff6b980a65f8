import { createDteCreate, type CreateDeps } from './dte.create.ts';
import { createDtePdf, type PdfDeps } from './dte.pdf.ts';
import { createDteReads } from './dte.read.ts';

/**
 * The DTE service: create (dte.create.ts), the reads (dte.read.ts) and the printed document
 * (dte.pdf.ts). Methods about one tenant take the tenant row the caller resolved
 * (docs/design.md §11); sending lives in dte.send.ts.
 */
export type DteDeps = CreateDeps & PdfDeps;

export function createDteService(deps: DteDeps) {
  const reads = createDteReads(deps);
  return { create: createDteCreate(deps), ...reads, ...createDtePdf({ ...deps, printable: reads.printable }) };
}

export type DteService = ReturnType<typeof createDteService>;
export type { Dte } from './dte.views.ts';
