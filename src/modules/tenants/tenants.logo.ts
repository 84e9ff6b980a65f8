import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { LogoError, type LogoPreparer } from '../../pdf/index.ts';
import type { TenantRef } from './tenants.service.ts';

/**
 * A tenant's logo, printed on its documents (docs/dte.md, "The logo"). The upload is checked and
 * re-encoded by src/pdf (logo.ts; in a worker thread, logo-isolated.ts); what is stored and served
 * is that canonical PNG. Every query is
 * scoped by account and tenant, like the tenant itself.
 */
export interface LogoInfo {
  contentType: 'image/png';
  width: number;
  height: number;
  bytes: number;
  source: { format: string; bytes: number };
  updatedAt: string;
}

interface LogoRow {
  png: Buffer;
  width: number;
  height: number;
  source_format: string;
  source_bytes: number;
  updated_at: Date;
}

const toInfo = (r: Omit<LogoRow, 'png'> & { bytes: number }): LogoInfo => ({
  contentType: 'image/png',
  width: r.width,
  height: r.height,
  bytes: r.bytes,
  source: { format: r.source_format, bytes: r.source_bytes },
  updatedAt: r.updated_at.toISOString(),
});

const logoStore = {
  async png(sql: Sql, t: TenantRef): Promise<Buffer | undefined> {
    const r = await sql.query<{ png: Buffer }>('select png from tenant_logos where account_id = $1 and tenant_id = $2', [
      t.account_id,
      t.id,
    ]);
    return r.rows[0]?.png;
  },
  /** The description only: the image's size is counted by the database, the image not read. */
  async info(sql: Sql, t: TenantRef): Promise<(Omit<LogoRow, 'png'> & { bytes: number }) | undefined> {
    const r = await sql.query<Omit<LogoRow, 'png'> & { bytes: number }>(
      `select octet_length(png) as bytes, width, height, source_format, source_bytes, updated_at
       from tenant_logos where account_id = $1 and tenant_id = $2`,
      [t.account_id, t.id],
    );
    const row = r.rows[0];
    return row ? { ...row, bytes: Number(row.bytes), updated_at: new Date(row.updated_at) } : undefined;
  },
  async put(sql: Sql, t: TenantRef, l: { png: Buffer; width: number; height: number; format: string; bytes: number }, now: Date) {
    await sql.query(
      `insert into tenant_logos (tenant_id, account_id, png, width, height, source_format, source_bytes, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       on conflict (tenant_id) do update set png = excluded.png, width = excluded.width, height = excluded.height,
         source_format = excluded.source_format, source_bytes = excluded.source_bytes, updated_at = excluded.updated_at`,
      [t.id, t.account_id, l.png, l.width, l.height, l.format, l.bytes, now],
    );
  },
  async delete(sql: Sql, t: TenantRef): Promise<boolean> {
    const r = await sql.query('delete from tenant_logos where account_id = $1 and tenant_id = $2', [t.account_id, t.id]);
    return r.rowCount > 0;
  },
};

export function createTenantLogos(deps: {
  db: Db;
  clock: Clock;
  preparer: Pick<LogoPreparer, 'prepare'>;
  audit?: AuditRecorder | undefined;
}) {
  const { db, clock, preparer } = deps;
  const find = async (tenant: TenantRef): Promise<LogoInfo | null> => {
    const r = await logoStore.info(db, tenant);
    return r ? toInfo(r) : null;
  };
  return {
    /**
     * Checks the upload (PNG or JPEG, real and decodable, sensible dimensions) and stores its
     * canonical PNG; replaces any previous logo. A bad file is a 400 `invalid_logo` whose
     * `details.reason` says what is wrong; too many uploads being checked at once, a 503 `busy`.
     * `tenant` is the row the caller resolved.
     */
    async put(tenant: TenantRef, bytes: Buffer, contentType: string | undefined, actor?: AuditActor): Promise<LogoInfo> {
      let prepared;
      try {
        prepared = await preparer.prepare(bytes, contentType);
      } catch (e) {
        if (!(e instanceof LogoError)) throw e;
        const { message, ...details } = e.problem;
        throw errors.invalid('invalid_logo', message, { details });
      }
      const now = clock.now();
      const l = { png: prepared.png, width: prepared.width, height: prepared.height, format: prepared.source.format, bytes: bytes.length };
      await db.transaction(async (tx) => {
        await logoStore.put(tx, tenant, l, now);
        await deps.audit?.recordIn(tx, actor, {
          accountId: tenant.account_id,
          action: 'tenant.logo_updated',
          target: { type: 'tenant', id: tenant.id },
          details: { width: l.width, height: l.height, format: l.format },
        });
      });
      return toInfo({
        width: l.width,
        height: l.height,
        bytes: l.png.length,
        source_format: l.format,
        source_bytes: l.bytes,
        updated_at: now,
      });
    },
    /** The description, or null when the tenant has no logo. */
    find,
    async info(tenant: TenantRef): Promise<LogoInfo> {
      const info = await find(tenant);
      if (!info) throw errors.notFound('logo');
      return info;
    },
    /** For other modules (the printed document): the canonical PNG, or null when there is none. */
    png: async (tenant: TenantRef): Promise<Buffer | null> => (await logoStore.png(db, tenant)) ?? null,
    async remove(tenant: TenantRef, actor?: AuditActor): Promise<void> {
      const gone = await db.transaction(async (tx) => {
        const deleted = await logoStore.delete(tx, tenant);
        if (deleted)
          await deps.audit?.recordIn(tx, actor, {
            accountId: tenant.account_id,
            action: 'tenant.logo_removed',
            target: { type: 'tenant', id: tenant.id },
          });
        return deleted;
      });
      if (!gone) throw errors.notFound('logo');
    },
  };
}

export type TenantLogos = ReturnType<typeof createTenantLogos>;
