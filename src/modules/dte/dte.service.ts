import type { TenantRow } from '../tenants/index.ts';
import { createDteCreate, type CreateDeps } from './dte.create.ts';
import { prepareCreate, type CreateDte } from './dte.input.ts';
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
  return {
    create: createDteCreate(deps),
    /**
     * Every check `create` makes before a folio is reserved, without reserving one: the AppError
     * `create` would answer, or nothing. The certification module asks it of every case of a set
     * before the first folio is spent (docs/certification.md, "Making the documents").
     */
    check(tenant: TenantRow, body: CreateDte): void {
      const { tenantProblem } = prepareCreate(body, tenant, deps.clock.now());
      if (tenantProblem) throw tenantProblem;
    },
    ...reads,
    ...createDtePdf({ ...deps, printable: reads.printable }),
  };
}

export type DteService = ReturnType<typeof createDteService>;
export type { Dte } from './dte.views.ts';
