import type { Db } from '../../db/types.ts';
import { siiDate } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/tokens.ts';
import { DTE_STATUSES, SENDABLE, type CreateDte, type DteService, type SendService } from '../dte/index.ts';
import type { FoliosService } from '../folios/index.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { checkFolios } from './certification.folios.ts';
import { simulationStore, type SimulationRow } from './certification.simulation.store.ts';

/**
 * The certification's simulation (docs/certification.md, "The simulation"): after the test set,
 * the SII asks for a batch of documents like the company's real ones, without the set's
 * references, sent and accepted without objections. The user gives them as ordinary
 * `POST …/dte` bodies (the SII wants the company's own operation, which only the user knows); the
 * run makes them all through the dte module, or none: each is checked as `POST …/dte` checks it
 * and the folios are counted before the first is spent. Sending and status are the set's.
 */
export interface SimulationDeps {
  db: Db;
  clock: Clock;
  dte: Pick<DteService, 'create' | 'check' | 'get'>;
  folios: Pick<FoliosService, 'inventory'>;
  dteSend: Pick<SendService, 'send'>;
}

/** The SII's simulation is 20 to 100 documents; fewer are accepted here, so a user can try a few first. */
export const SIMULATION_MAX_DOCUMENTS = 100;

type DteStatus = (typeof DTE_STATUSES)[number];

export interface CertificationSimulation {
  id: string;
  object: 'certification_simulation';
  tenantId: string;
  documents: { dteId: string; tipoDte: number; folio: number; status: string }[];
  /** How many of the run's documents are in each status. */
  statuses: Record<DteStatus, number>;
  /** done: every document accepted without objections, as the SII's simulation requires. */
  done: boolean;
  createdAt: string;
}

export function createCertificationSimulation({ db, clock, dte, folios, dteSend }: SimulationDeps) {
  const view = async (tenant: TenantRow, row: SimulationRow): Promise<CertificationSimulation> => {
    const ids = await simulationStore.documents(db, tenant.account_id, row.id);
    const documents: CertificationSimulation['documents'] = [];
    for (const id of ids) {
      const d = await dte.get(tenant, id);
      documents.push({ dteId: d.id, tipoDte: d.tipoDte, folio: d.folio, status: d.status });
    }
    const statuses = Object.fromEntries(DTE_STATUSES.map((s) => [s, documents.filter((d) => d.status === s).length])) as Record<
      DteStatus,
      number
    >;
    return {
      id: row.id,
      object: 'certification_simulation',
      tenantId: row.tenant_id,
      documents,
      statuses,
      done: documents.length > 0 && statuses.accepted === documents.length,
      createdAt: new Date(row.created_at).toISOString(),
    };
  };

  const find = async (tenant: TenantRow, id: string) => {
    const row = await simulationStore.get(db, tenant.account_id, tenant.id, id);
    if (!row) throw errors.notFound('certification_simulation', id, 'simulationId');
    return row;
  };

  /** Every document checked as POST …/dte would, without a folio: the 422 names each and why. */
  const checkAll = (tenant: TenantRow, documents: readonly CreateDte[]) => {
    const problems: { index: number; code: string; message: string; param: string | null }[] = [];
    documents.forEach((d, index) => {
      const set = (d.referencias ?? []).findIndex((r) => r.tipoDocRef === 'SET');
      if (set >= 0) {
        problems.push({
          index,
          code: 'certification_simulation_set_reference',
          message: "The simulation is of the company's own documents: leave out the test set's reference (tipoDocRef SET).",
          param: `documents[${index}].referencias[${set}].tipoDocRef`,
        });
        return;
      }
      try {
        dte.check(tenant, d);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        problems.push({ index, code: e.code, message: e.message, param: e.param ? `documents[${index}].${e.param}` : null });
      }
    });
    if (problems.length > 0)
      throw errors.unprocessable(
        'certification_simulation_unbuildable',
        `${problems.length} document(s) of the simulation cannot be made, so none was: ${problems
          .slice(0, 5)
          .map((p) => `documents[${p.index}] (${p.code}: ${p.message})`)
          .join('; ')}.`,
        { param: problems[0]!.param ?? 'documents', details: { documents: problems } },
      );
  };

  return {
    async create(tenant: TenantRow, documents: readonly CreateDte[]): Promise<CertificationSimulation> {
      if (tenant.ambiente !== 'certificacion')
        throw errors.conflict(
          'certification_tenant_not_in_certification',
          `The tenant issues in ${tenant.ambiente}: a simulation's documents are made by a tenant with ambiente "certificacion".`,
          { param: 'tenantId' },
        );
      requireReady(tenant);
      checkAll(tenant, documents);
      // The strictest date: a CAF must be authorised on or before the earliest document.
      const today = siiDate(clock.now());
      const earliest = documents.map((d) => d.fechaEmision ?? today).reduce((a, b) => (a < b ? a : b), today);
      await checkFolios(
        folios,
        tenant,
        documents.map((d) => d.tipoDte),
        earliest,
        { what: 'the simulation', param: 'documents' },
      );
      const row = await simulationStore.insert(db, {
        id: newId(),
        accountId: tenant.account_id,
        tenantId: tenant.id,
        requested: documents.length,
        now: clock.now(),
      });
      for (const [position, body] of documents.entries())
        await dte.create(tenant, body, {
          bindResult: (tx, dteId) =>
            simulationStore.recordDocument(tx, { simulationId: row.id, position, accountId: tenant.account_id, dteId }),
        });
      return view(tenant, row);
    },

    async get(tenant: TenantRow, id: string): Promise<CertificationSimulation> {
      return view(tenant, await find(tenant, id));
    },

    /** Sends the run's documents not sent yet, as POST …/dte/send does (one envelope per kind); again, nothing. */
    async send(tenant: TenantRow, id: string) {
      const row = await find(tenant, id);
      const ids: string[] = [];
      for (const dteId of await simulationStore.documents(db, tenant.account_id, row.id))
        if (SENDABLE.includes((await dte.get(tenant, dteId)).status)) ids.push(dteId);
      if (ids.length === 0) return { envios: [] };
      return dteSend.send(tenant, ids);
    },
  };
}

export type CertificationSimulationService = ReturnType<typeof createCertificationSimulation>;
