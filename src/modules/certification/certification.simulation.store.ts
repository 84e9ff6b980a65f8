import type { Sql } from '../../db/types.ts';
import { UUID_RE } from '../../lib/tokens.ts';

export interface SimulationRow {
  id: string;
  account_id: string;
  tenant_id: string;
  requested: number;
  created_at: Date;
}

/** Every query is scoped by account (and tenant where a run is looked up): another account's run does not exist here. */
export const simulationStore = {
  async insert(tx: Sql, s: { id: string; accountId: string; tenantId: string; requested: number; now: Date }): Promise<SimulationRow> {
    const r = await tx.query<SimulationRow>(
      `insert into certification_simulations (id, account_id, tenant_id, requested, created_at) values ($1, $2, $3, $4, $5)
       returning id, account_id, tenant_id, requested, created_at`,
      [s.id, s.accountId, s.tenantId, s.requested, s.now],
    );
    return r.rows[0]!;
  },

  async get(tx: Sql, accountId: string, tenantId: string, id: string): Promise<SimulationRow | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await tx.query<SimulationRow>(
      `select id, account_id, tenant_id, requested, created_at from certification_simulations
       where account_id = $1 and tenant_id = $2 and id = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  /** The run's DTE ids, in the order they were given. */
  async documents(tx: Sql, accountId: string, simulationId: string): Promise<string[]> {
    const r = await tx.query<{ dte_id: string }>(
      'select dte_id from certification_simulation_documents where account_id = $1 and simulation_id = $2 order by position',
      [accountId, simulationId],
    );
    return r.rows.map((x) => x.dte_id);
  },

  /** Runs in the transaction that stores the DTE. */
  async recordDocument(tx: Sql, d: { simulationId: string; position: number; accountId: string; dteId: string }): Promise<void> {
    await tx.query('insert into certification_simulation_documents (simulation_id, position, account_id, dte_id) values ($1, $2, $3, $4)', [
      d.simulationId,
      d.position,
      d.accountId,
      d.dteId,
    ]);
  },
};
