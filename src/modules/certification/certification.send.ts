import { errors } from '../../errors.ts';
import type { Db } from '../../db/types.ts';
import { SENDABLE, type DteService, type SendService } from '../dte/index.ts';
import type { TenantRow } from '../tenants/index.ts';
import { certificationStore } from './certification.store.ts';
import type { SectionKind } from './set/set.types.ts';

/**
 * Sending a set's documents in the envelopes the SII asks for (docs/certification.md, "Sending
 * the documents"): the básico, guías and exenta sections together, each other section (each
 * export set, the liquidaciones, the factura de compra) in an envelope of its own. Each group goes
 * through the dte module's send, as `POST …/dte/send` would (EnvioDTE, or EnvioBOLETA for boletas),
 * through the tenant's provider. Documents already sent are left out: the call again sends nothing.
 */
export interface SendSetDeps {
  db: Db;
  dte: Pick<DteService, 'get'>;
  dteSend: Pick<SendService, 'send'>;
}

/** The sections the SII wants in one envelope (its instructions for the test set). */
const TOGETHER: readonly SectionKind[] = ['basico', 'guias', 'exenta'];
export function createCertificationSend({ db, dte, dteSend }: SendSetDeps) {
  return async function send(tenant: TenantRow, setId: string) {
    const row = await certificationStore.get(db, tenant.account_id, tenant.id, setId);
    if (!row) throw errors.notFound('certification_set', setId, 'setId');
    const made = await certificationStore.documents(db, tenant.account_id, row.id);
    if (made.size === 0)
      throw errors.conflict(
        'certification_documents_missing',
        "The set's documents are not made yet: POST …/certification/sets/{setId}/documents first.",
        { param: 'setId' },
      );
    const groups = new Map<string, string[]>();
    for (const c of row.parsed.cases) {
      const id = made.get(c.id);
      if (!id) continue;
      const group = TOGETHER.includes(c.section) ? 'basico' : c.section;
      if (!SENDABLE.includes((await dte.get(tenant, id)).status)) continue;
      groups.set(group, [...(groups.get(group) ?? []), id]);
    }
    const envios = [];
    for (const ids of groups.values()) envios.push(...(await dteSend.send(tenant, ids)).envios);
    return { envios };
  };
}
