import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import { UUID_RE } from '../../lib/tokens.ts';
import type { TenantProvider } from './tenants.provider.ts';

export interface TenantRow {
  id: string;
  account_id: string;
  rut_empresa: string;
  razon_social: string;
  giro: string;
  direccion: string;
  comuna: string;
  ciudad: string;
  numero_resolucion: number;
  fecha_resolucion: string;
  acteco: number[];
  ambiente: 'certificacion' | 'produccion';
  email: string | null;
  emisor: IssuerDefaults;
  provider: TenantProvider;
  /** Set at creation (migration 202612051000_tenant_livemode): false for a test-mode tenant. */
  livemode: boolean;
  status: 'pending_credentials' | 'active';
  api_key_verified_at: Date | null;
  certificate_configured: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TenantFields {
  rutEmpresa: string;
  razonSocial: string;
  giro: string;
  direccion: string;
  comuna: string;
  ciudad: string;
  numeroResolucion: number;
  fechaResolucion: string;
  acteco: number[];
  ambiente: 'certificacion' | 'produccion';
  email: string | null;
  emisor: IssuerDefaults;
  provider: TenantProvider;
}

/**
 * The tenant's issuer data beyond its identity, written on each of its documents unless the
 * document overrides it (docs/decisions.md §11; docs/dte.md "Issuer data"). `unidadSii` is only printed.
 */
export interface IssuerDefaults {
  telefono?: string;
  correo?: string;
  sucursal?: string;
  codigoSucursal?: number;
  vendedor?: string;
  unidadSii?: string;
}

const COLUMNS: Record<keyof TenantFields, string> = {
  rutEmpresa: 'rut_empresa',
  razonSocial: 'razon_social',
  giro: 'giro',
  direccion: 'direccion',
  comuna: 'comuna',
  ciudad: 'ciudad',
  numeroResolucion: 'numero_resolucion',
  fechaResolucion: 'fecha_resolucion',
  acteco: 'acteco',
  ambiente: 'ambiente',
  email: 'email',
  emisor: 'emisor',
  provider: 'provider',
};

// fecha_resolucion is read as text so that a DATE never shifts through a time zone.
const SELECT = `select t.*, to_char(t.fecha_resolucion, 'YYYY-MM-DD') as fecha_resolucion from tenants t`;

/** Every query is scoped by account: another account's tenant simply does not exist here. */
export const tenantsStore = {
  async insert(tx: Sql, accountId: string, id: string, f: TenantFields, now: Date, livemode: boolean) {
    await tx.query(
      `insert into tenants (id, account_id, rut_empresa, razon_social, giro, direccion, comuna, ciudad,
         numero_resolucion, fecha_resolucion, acteco, ambiente, email, emisor, provider, created_at, updated_at, livemode)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16, $14, $14, $17)`,
      [
        id,
        accountId,
        f.rutEmpresa,
        f.razonSocial,
        f.giro,
        f.direccion,
        f.comuna,
        f.ciudad,
        f.numeroResolucion,
        f.fechaResolucion,
        JSON.stringify(f.acteco),
        f.ambiente,
        f.email,
        now,
        JSON.stringify(f.emisor),
        f.provider,
        livemode,
      ],
    );
    return (await this.get(tx, accountId, id))!;
  },
  /**
   * Another tenant of the account for the same company RUT and environment, if any. The caller's
   * transaction first takes a lock on that pair, so two concurrent creates cannot both miss each
   * other (the lock lasts until the transaction ends).
   */
  async lockAndFindSame(tx: Sql, accountId: string, rutEmpresa: string, ambiente: string, exceptId?: string) {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`tenant:${accountId}:${rutEmpresa}:${ambiente}`]);
    const r = await tx.query<{ id: string }>(
      `select id from tenants where account_id = $1 and rut_empresa = $2 and ambiente = $3 and ($4::uuid is null or id <> $4::uuid) limit 1`,
      [accountId, rutEmpresa, ambiente, exceptId ?? null],
    );
    return r.rows[0]?.id;
  },
  async get(tx: Sql, accountId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    // Compared as a uuid, so the primary key finds it (a text comparison scans the account's rows).
    if (!UUID_RE.test(id)) return undefined;
    const r = await tx.query<TenantRow>(`${SELECT} where t.account_id = $1 and t.id = $2${opts.forUpdate ? ' for update' : ''}`, [
      accountId,
      id,
    ]);
    return r.rows[0];
  },
  async list(tx: Sql, accountId: string, opts: { limit: number; cursor?: Cursor | undefined; status?: string | undefined }) {
    const c = cursorCondition(opts.cursor, 4, 't');
    const r = await tx.query<TenantRow>(
      `${SELECT} where t.account_id = $1 and ($3::text is null or t.status = $3) and ${c.sql}
       order by t.created_at desc, t.id desc limit $2`,
      [accountId, opts.limit + 1, opts.status ?? null, ...c.params],
    );
    return r.rows;
  },
  async update(tx: Sql, accountId: string, id: string, patch: Partial<TenantFields>, now: Date) {
    const sets: string[] = [];
    const params: unknown[] = [accountId, id, now];
    for (const [k, v] of Object.entries(patch) as [keyof TenantFields, unknown][]) {
      if (v === undefined) continue;
      params.push(k === 'acteco' || k === 'emisor' ? JSON.stringify(v) : v);
      // The issuer data is merged in one statement, so concurrent PATCHes of different keys both
      // land; a key patched to null is removed.
      sets.push(k === 'emisor' ? `emisor = jsonb_strip_nulls(emisor || $${params.length}::jsonb)` : `${COLUMNS[k]} = $${params.length}`);
    }
    await tx.query(`update tenants set ${[...sets, 'updated_at = $3'].join(', ')} where account_id = $1 and id = $2`, params);
    return this.get(tx, accountId, id);
  },
  /**
   * Recomputes status from the credential summary and the provider (what it needs: tenants.provider.ts
   * credentialsComplete, said here in SQL); returns the new and the previous status.
   */
  async refreshStatus(tx: Sql, accountId: string, id: string, now: Date) {
    const r = await tx.query<{ status: string; previous: string }>(
      `update tenants t set status = case when t.certificate_configured and (t.api_key_verified_at is not null or t.provider = 'sii')
           then 'active' else 'pending_credentials' end,
         updated_at = $3
       from (select status as previous from tenants where account_id = $1 and id = $2) p
       where t.account_id = $1 and t.id = $2 returning t.status, p.previous`,
      [accountId, id, now],
    );
    return r.rows[0];
  },
};
