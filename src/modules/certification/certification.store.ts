import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import { UUID_RE } from '../../lib/tokens.ts';
import type { ParsedSet } from './set/set.types.ts';

export interface CertificationSetRow {
  id: string;
  account_id: string;
  tenant_id: string;
  sha256: string;
  parsed: ParsedSet;
  created_at: Date;
  updated_at: Date;
}

const COLS = 'id, account_id, tenant_id, sha256, parsed, created_at, updated_at';

/** Every query is scoped by account and tenant: another account's set simply does not exist here. */
export const certificationStore = {
  /** Inserts the set unless the tenant has one with the same hash; returns the new row, or undefined. */
  async insert(
    tx: Sql,
    s: { id: string; accountId: string; tenantId: string; sha256: string; text: string; parsed: ParsedSet; now: Date },
  ): Promise<CertificationSetRow | undefined> {
    const r = await tx.query<CertificationSetRow>(
      `insert into certification_sets (id, account_id, tenant_id, sha256, text, parsed, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7)
       on conflict (tenant_id, sha256) do nothing
       returning ${COLS}`,
      [s.id, s.accountId, s.tenantId, s.sha256, s.text, JSON.stringify(s.parsed), s.now],
    );
    return r.rows[0];
  },

  async byHash(tx: Sql, accountId: string, tenantId: string, sha256: string): Promise<CertificationSetRow | undefined> {
    const r = await tx.query<CertificationSetRow>(
      `select ${COLS} from certification_sets where account_id = $1 and tenant_id = $2 and sha256 = $3`,
      [accountId, tenantId, sha256],
    );
    return r.rows[0];
  },

  async get(tx: Sql, accountId: string, tenantId: string, id: string): Promise<CertificationSetRow | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await tx.query<CertificationSetRow>(
      `select ${COLS} from certification_sets where account_id = $1 and tenant_id = $2 and id = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  /** Newest first; limit + 1 rows so the caller knows whether it is done. */
  async list(tx: Sql, accountId: string, tenantId: string, limit: number, cursor: Cursor | undefined): Promise<CertificationSetRow[]> {
    const c = cursorCondition(cursor, 4);
    const r = await tx.query<CertificationSetRow>(
      `select ${COLS} from certification_sets where account_id = $1 and tenant_id = $2 and ${c.sql}
       order by created_at desc, id desc limit $3`,
      [accountId, tenantId, limit + 1, ...c.params],
    );
    return r.rows;
  },

  /** Case → DTE id of the set's documents made so far. */
  async documents(tx: Sql, accountId: string, setId: string): Promise<Map<string, string>> {
    const r = await tx.query<{ case_id: string; dte_id: string }>(
      'select case_id, dte_id from certification_documents where account_id = $1 and set_id = $2',
      [accountId, setId],
    );
    return new Map(r.rows.map((x) => [x.case_id, x.dte_id]));
  },

  /** Runs in the transaction that stores the DTE (docs/certification.md, "Making the documents"). */
  async recordDocument(tx: Sql, d: { setId: string; caseId: string; accountId: string; tenantId: string; dteId: string; now: Date }) {
    await tx.query(
      `insert into certification_documents (set_id, case_id, account_id, tenant_id, dte_id, created_at)
       values ($1, $2, $3, $4, $5, $6)`,
      [d.setId, d.caseId, d.accountId, d.tenantId, d.dteId, d.now],
    );
  },

  /** Takes the set's lease to make its documents unless another call holds one still running. */
  async claimDocumentsLease(tx: Sql, accountId: string, setId: string, now: Date, until: Date): Promise<boolean> {
    const r = await tx.query(
      `update certification_sets set documents_lease_until = $4
       where account_id = $1 and id = $2 and (documents_lease_until is null or documents_lease_until <= $3)
       returning id`,
      [accountId, setId, now, until],
    );
    return r.rows.length === 1;
  },

  async releaseDocumentsLease(tx: Sql, accountId: string, setId: string): Promise<void> {
    await tx.query('update certification_sets set documents_lease_until = null where account_id = $1 and id = $2', [accountId, setId]);
  },
};
