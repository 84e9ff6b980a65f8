import type { Db } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { siiDate } from '../../dte/index.ts';
import type { CreateDte, DteService } from '../dte/index.ts';
import type { FoliosService } from '../folios/index.ts';
import { checkFolios } from './certification.folios.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { certificationStore } from './certification.store.ts';
import { toCertificationSet, type CertificationSet } from './certification.views.ts';
import { caseRequests, type CaseRequest, type ReceptorRequest } from './set/case-request.ts';

/**
 * Making a set's documents (docs/certification.md, "Making the documents"): every case's document
 * through the dte module, in the set's order, so a note's reference names the folio and date of
 * the document made for the case it modifies.
 *
 * Never half a set: every case is checked the way `POST …/dte` checks a document, and the tenant's
 * folios counted per type, before the first folio is spent. Each case's row (case → DTE) is written
 * in the transaction that stores its DTE (the dte module's `bindResult`), so a case has its
 * document or none; a call after a crash midway makes the rest, and a lease on the set keeps two
 * calls from making the same case at once.
 */
export interface DocumentsDeps {
  db: Db;
  clock: Clock;
  dte: Pick<DteService, 'create' | 'check' | 'get'>;
  folios: Pick<FoliosService, 'inventory'>;
}

export interface MakeDocumentsOptions {
  fechaEmision?: string | undefined;
  receptor?: ReceptorRequest | undefined;
  receptorExtranjero?: ReceptorRequest | undefined;
}

/** How long one call may hold the set before another may resume it (a crashed process's lease lapses). */
const LEASE_MS = 10 * 60_000;

/** The SII itself: the receptor of the set's documents unless the caller names one. */
const SII_RECEPTOR: ReceptorRequest = {
  rut: '60.803.000-K',
  razonSocial: 'SERVICIO DE IMPUESTOS INTERNOS',
  giro: 'ADMINISTRACION PUBLICA',
  direccion: 'TEATINOS 120',
  comuna: 'SANTIAGO',
  ciudad: 'SANTIAGO',
};
/** A foreign buyer (RUT 55.555.555-5, the SII's for foreign receptors: docs/dte.md). */
const FOREIGN_RECEPTOR: ReceptorRequest = {
  rut: '55.555.555-5',
  razonSocial: 'CLIENTE EXTRANJERO',
  giro: 'IMPORTADOR',
  direccion: 'EXTRANJERO',
  ciudad: 'EXTRANJERO',
};

export function createCertificationDocuments({ db, clock, dte, folios }: DocumentsDeps) {
  /** The request with each pending reference's folio and date; stand-ins (folio 1) when `made` lacks it. */
  const resolve = (r: CaseRequest, made: ReadonlyMap<string, { folio: number; fechaEmision: string }>): CreateDte => {
    const referencias = r.body.referencias.map((x) => ({ ...x }));
    for (const p of r.pending) {
      const doc = made.get(p.caseId);
      referencias[p.index] = { ...referencias[p.index]!, folioRef: doc?.folio ?? 1, fechaRef: doc?.fechaEmision ?? r.body.fechaEmision };
    }
    return { ...r.body, referencias } as unknown as CreateDte;
  };

  /** Every case still to make, checked as POST …/dte would, without a folio: the 422 names each case and why. */
  const checkBuildable = (tenant: TenantRow, todo: CaseRequest[]) => {
    const cases: { caseId: string; reasons: string[] }[] = [];
    for (const r of todo) {
      const reasons = [...r.unbuildable];
      if (reasons.length === 0) {
        try {
          dte.check(tenant, resolve(r, new Map()));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          reasons.push(`${e.code}: ${e.message}`);
        }
      }
      if (reasons.length > 0) cases.push({ caseId: r.caseId, reasons });
    }
    if (cases.length > 0)
      throw errors.unprocessable(
        'certification_cases_unbuildable',
        `${cases.length} case(s) of the set cannot be built, so none was made: ${cases.map((c) => `CASO ${c.caseId} (${c.reasons[0]})`).join('; ')}.`,
        { param: 'setId', details: { cases } },
      );
  };

  return {
    /**
     * Makes every document case's DTE not made yet. `created` is how many this call made: 0 when
     * the set's documents were all made before (the call is idempotent).
     */
    async make(tenant: TenantRow, setId: string, opts: MakeDocumentsOptions = {}): Promise<{ created: number; set: CertificationSet }> {
      const accountId = tenant.account_id;
      const row = await certificationStore.get(db, accountId, tenant.id, setId);
      if (!row) throw errors.notFound('certification_set', setId, 'setId');
      let made = await certificationStore.documents(db, accountId, row.id);
      const fecha = opts.fechaEmision ?? siiDate(clock.now());
      const requests = caseRequests(row.parsed, {
        fecha,
        receptor: opts.receptor ?? SII_RECEPTOR,
        emisor: {
          rut: tenant.rut_empresa,
          razonSocial: tenant.razon_social,
          giro: tenant.giro,
          direccion: tenant.direccion,
          comuna: tenant.comuna,
          ciudad: tenant.ciudad,
        },
        receptorExtranjero: opts.receptorExtranjero ?? FOREIGN_RECEPTOR,
      });
      if (requests.every((r) => made.has(r.caseId))) return { created: 0, set: toCertificationSet(row, made) };

      // The SII certifies in its certification environment only (docs/certification.md).
      if (tenant.ambiente !== 'certificacion')
        throw errors.conflict(
          'certification_tenant_not_in_certification',
          `The tenant issues in ${tenant.ambiente}: a test set's documents are made by a tenant with ambiente "certificacion" (create one for the same company, or PATCH its ambiente).`,
          { param: 'tenantId' },
        );
      requireReady(tenant);
      const todo = requests.filter((r) => !made.has(r.caseId));
      checkBuildable(tenant, todo);
      await checkFolios(
        folios,
        tenant,
        todo.map((r) => r.body.tipoDte),
        fecha,
        { what: 'the set', param: 'setId' },
      );

      const now = clock.now();
      if (!(await certificationStore.claimDocumentsLease(db, accountId, row.id, now, new Date(now.getTime() + LEASE_MS))))
        throw errors.conflict(
          'certification_documents_in_progress',
          "Another call is making this set's documents; call again once it answers (it returns them all).",
          { param: 'setId' },
        );
      let created = 0;
      try {
        // Read again under the lease: a call that held it before may have made some.
        made = await certificationStore.documents(db, accountId, row.id);
        const docs = new Map<string, { folio: number; fechaEmision: string }>();
        const docOf = async (caseId: string) => {
          let d = docs.get(caseId);
          const id = made.get(caseId);
          if (!d && id) {
            const got = await dte.get(tenant, id);
            d = { folio: got.folio, fechaEmision: got.fechaEmision };
            docs.set(caseId, d);
          }
          return d;
        };
        for (const r of requests) {
          if (made.has(r.caseId)) continue;
          for (const p of r.pending) await docOf(p.caseId);
          const body = resolve(r, docs);
          const doc = await dte.create(tenant, body, {
            bindResult: (tx, dteId) =>
              certificationStore.recordDocument(tx, {
                setId: row.id,
                caseId: r.caseId,
                accountId,
                tenantId: tenant.id,
                dteId,
                now: clock.now(),
              }),
          });
          made.set(r.caseId, doc.id);
          docs.set(r.caseId, { folio: doc.folio, fechaEmision: doc.fechaEmision });
          created++;
        }
      } finally {
        await certificationStore.releaseDocumentsLease(db, accountId, row.id);
      }
      return { created, set: toCertificationSet(row, made) };
    },
  };
}

export type CertificationDocuments = ReturnType<typeof createCertificationDocuments>;
