import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { MAX_LENGTH } from '../../dte/index.ts';
import { formatRutDotted, tryParseRut } from '../../dte/rut.ts';
import { errors } from '../../errors.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { requireDate, siiText } from '../../lib/validate.ts';
import { createTenantCache, type TenantCache } from './tenants.cache.ts';
import { credentialsComplete, DEFAULT_PROVIDER } from './tenants.provider.ts';
import { tenantsStore, type IssuerDefaults, type TenantFields, type TenantRow } from './tenants.store.ts';

const ISSUER_KEYS = ['telefono', 'correo', 'sucursal', 'codigoSucursal', 'vendedor', 'unidadSii'] as const;
type IssuerView = { [K in keyof IssuerDefaults]-?: IssuerDefaults[K] | null };
/** A create or PATCH of the issuer data: null clears a key, an absent key stays as it is. */
export type IssuerPatch = { [K in keyof IssuerDefaults]?: IssuerDefaults[K] | null | undefined };

/** Every key, null when unset: the record always shows the whole shape. */
const issuerView = (e: IssuerDefaults): IssuerView => Object.fromEntries(ISSUER_KEYS.map((k) => [k, e[k] ?? null])) as IssuerView;

/**
 * The longest each text field may be once cleaned: the SII field it is written into (RznSoc,
 * GiroEmis, DirOrigen, CmnaOrigen, CiudadOrigen, Telefono, CorreoEmisor, Sucursal, CdgVendedor);
 * unidadSii is only printed ("S.I.I. - …").
 */
const TEXT_MAX = {
  razonSocial: MAX_LENGTH.razonSocial,
  giro: MAX_LENGTH.giroEmisor,
  direccion: MAX_LENGTH.direccion,
  comuna: MAX_LENGTH.comuna,
  ciudad: MAX_LENGTH.ciudad,
  telefono: MAX_LENGTH.telefono,
  correo: MAX_LENGTH.correo,
  sucursal: MAX_LENGTH.sucursal,
  vendedor: MAX_LENGTH.vendedor,
  unidadSii: MAX_LENGTH.unidadSii,
} as const;
const IDENTITY_TEXT = ['razonSocial', 'giro', 'direccion', 'comuna', 'ciudad'] as const;

/**
 * A text field as every document will carry it: the engine's text policy applied before it is
 * stored (src/lib/validate.ts `siiText`), so a tenant that saves is one whose documents can be
 * written (an emoji or a lone control character here used to fail every later document with 409
 * tenant_data_invalid). Blank, before or after cleaning → 400 invalid_field.
 */
function tenantText(value: string, k: keyof typeof TEXT_MAX, param: string = k, blank = 'must not be blank'): string {
  const v = siiText(value, { param, maxLength: TEXT_MAX[k], optional: true });
  if (v === undefined) throw errors.invalid('invalid_field', `${param} ${blank}.`, { param });
  return v;
}

/** A patch cleaned by the text policy and never blank, null kept (it clears the key: tenants.store.ts). */
function cleanIssuer(patch: IssuerPatch): IssuerPatch {
  const out: IssuerPatch = {};
  for (const k of ISSUER_KEYS) {
    const v = patch[k];
    if (v === undefined) continue;
    (out as Record<string, unknown>)[k] =
      typeof v === 'string' && k !== 'codigoSucursal' ? tenantText(v, k, `emisor.${k}`, 'must not be blank (send null to clear it)') : v;
  }
  return out;
}

export interface Tenant extends Omit<TenantFields, 'email' | 'emisor'> {
  id: string;
  email: string | null;
  emisor: IssuerView;
  livemode: boolean;
  status: TenantRow['status'];
  credentials: { apiKey: { configured: boolean; lastVerified: string | null }; certificate: { configured: boolean }; ready: boolean };
  createdAt: string;
  updatedAt: string;
}

export const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  rutEmpresa: r.rut_empresa,
  razonSocial: r.razon_social,
  giro: r.giro,
  direccion: r.direccion,
  comuna: r.comuna,
  ciudad: r.ciudad,
  numeroResolucion: r.numero_resolucion,
  fechaResolucion: r.fecha_resolucion,
  acteco: r.acteco,
  ambiente: r.ambiente,
  email: r.email,
  emisor: issuerView(r.emisor ?? {}),
  provider: r.provider,
  livemode: r.livemode,
  status: r.status,
  credentials: {
    apiKey: { configured: r.api_key_verified_at !== null, lastVerified: r.api_key_verified_at?.toISOString() ?? null },
    certificate: { configured: r.certificate_configured },
    ready: credentialsComplete(r.provider, { apiKey: r.api_key_verified_at !== null, certificate: r.certificate_configured }),
  },
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/**
 * The API view of a row, computed once per row object: a read served from the tenant cache gets
 * the same row object each time, so its view (three dates formatted, the issuer data filled in)
 * is built once, not per request. Rows are never changed in place (a change is a new row), and
 * the view is only serialised, never changed.
 */
const views = new WeakMap<TenantRow, Tenant>();
export const tenantView = (r: TenantRow): Tenant => {
  let v = views.get(r);
  if (!v) views.set(r, (v = toTenant(r)));
  return v;
};

/** Business rules the schema cannot say: the RUT check digit, real calendar dates. */
export function normaliseRutEmpresa(value: string): string {
  if (!/^\d{1,2}(\.?\d{3}){2}-[\dkK]$/.test(value.trim()))
    throw errors.invalid('invalid_rut', `rutEmpresa '${value}' is not in RUT format: write it with its check digit, like 76.123.456-7.`, {
      param: 'rutEmpresa',
    });
  const rut = tryParseRut(value.trim());
  if (!rut)
    throw errors.invalid('invalid_rut', `rutEmpresa '${value}' has a wrong check digit (modulo 11). Check the number.`, {
      param: 'rutEmpresa',
    });
  return formatRutDotted(rut);
}

/**
 * A tenant already resolved within the caller's account (the tenant-scope plugin on the API, the
 * page's own lookup on the dashboard): reads need only its ids, and still scope by both.
 */
export type TenantRef = Pick<TenantRow, 'id' | 'account_id'>;

/**
 * Issuing needs what the tenant's provider needs (tenants.provider.ts): through SimpleAPI the
 * provider API key (verified) and a certificate; straight to the SII, a certificate.
 */
export function requireReady(tenant: TenantRow): void {
  if (tenant.status !== 'active')
    throw errors.conflict(
      'tenant_not_ready',
      tenant.provider === 'sii'
        ? "The tenant's credentials are not complete: upload its certificate first (a direct tenant needs no API key; see GET /api/v1/tenants/{tenantId}/credentials/status)."
        : "The tenant's credentials are not complete: configure its billing-provider API key and a certificate first (see GET /api/v1/tenants/{tenantId}/credentials/status).",
    );
}

type CreateInput = Omit<TenantFields, 'acteco' | 'ambiente' | 'email' | 'emisor' | 'provider'> &
  Partial<Pick<TenantFields, 'acteco' | 'ambiente' | 'provider'>> & { email?: string | null | undefined; emisor?: IssuerPatch | undefined };

/**
 * One tenant per company RUT and environment in an account (docs/design.md, tenants): a second
 * would share folios and documents at the SII with the first, and is almost always a mistake.
 */
async function refuseDuplicate(tx: Sql, accountId: string, rutEmpresa: string, ambiente: string, exceptId?: string) {
  const other = await tenantsStore.lockAndFindSame(tx, accountId, rutEmpresa, ambiente, exceptId);
  if (other)
    throw errors.conflict(
      'tenant_exists',
      `This account already has a tenant for ${rutEmpresa} in ${ambiente} (${other}): use it, or change rutEmpresa or ambiente.`,
      { param: 'rutEmpresa', details: { tenantId: other } },
    );
}

/**
 * After a PATCH of `provider`, in its transaction: what the tenant needs changed, so its status is
 * recomputed, and a tenant whose credentials the change completed (a certificate only, now direct)
 * announces it with `tenant.credentials.updated`, as a credential change would (credential-writer.ts).
 * Nothing else moves: documents, envíos and CAFs are the tenant's whichever path they took.
 */
async function switchedProvider(tx: Sql, row: TenantRow, now: Date): Promise<TenantRow> {
  const st = await tenantsStore.refreshStatus(tx, row.account_id, row.id, now);
  if (st?.status === 'active' && st.previous !== 'active')
    await emitEvent(tx, {
      accountId: row.account_id,
      type: 'tenant.credentials.updated',
      data: { tenantId: row.id, apiKey: { configured: row.api_key_verified_at !== null }, certificate: { configured: true } },
      now,
    });
  return (await tenantsStore.get(tx, row.account_id, row.id)) ?? row;
}

export function createTenantsService(deps: {
  db: Db;
  clock: Clock;
  cache?: TenantCache | undefined;
  audit?: AuditRecorder;
  /**
   * Whether a scope id is an account's live scope (accounts.scopeOf; docs/design.md "Test mode"):
   * a tenant takes its mode from the scope it is made in. Absent (unit tests): live.
   */
  livemodeOf?: ((scopeId: string, sql: Sql) => Promise<boolean>) | undefined;
}) {
  const { db, clock } = deps;
  // On PGlite too: the one process hears its own commits' notifications (tenants.cache.ts).
  const cache = deps.cache ?? (db.listen || db.listenLocally ? createTenantCache(db) : undefined);
  /** After a commit that changed tenant rows: every process has dropped them (tenants.cache.ts). */
  const settled = async () => cache?.settled();
  /** The row if it exists within the account (an id that cannot exist is simply absent). */
  const findRow = (sql: Sql, accountId: string, id: string, opts: { forUpdate?: boolean } = {}) =>
    UUID_RE.test(id) ? tenantsStore.get(sql, accountId, id, opts) : Promise.resolve(undefined);
  const requireRow = async (sql: Sql, accountId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<TenantRow> => {
    const row = await findRow(sql, accountId, id, opts);
    if (!row) throw errors.notFound('tenant', id);
    return row;
  };
  const getRow = (accountId: string, id: string) => requireRow(db, accountId, id);
  /**
   * For reads only (the tenant-scope plugin on GET): the row from this process's cache when it is
   * there, else from the database. Writes resolve the row with getRow or in their transaction.
   */
  const readRow = async (accountId: string, id: string): Promise<TenantRow> => {
    const cached = cache?.get(accountId, id);
    if (cached) return cached;
    const startedAt = cache?.epoch() ?? 0;
    const row = await getRow(accountId, id);
    cache?.set(row, startedAt);
    return row;
  };
  /**
   * For a write that takes the tenant's committed row as the request starts, without locking it (the
   * tenant-scope plugin: a DTE create reads the issuer's data from it). On PGlite that is the cached
   * row: one process owns the database, and each of its commits that changes a tenant drops the row
   * before the commit resolves (tenants.cache.ts), so the cache holds exactly what a statement would
   * read at this moment, one statement fewer per write (docs/performance.md, "Fourth round: PGlite
   * creation"). On PostgreSQL another process's commit reaches this cache only after it committed,
   * so writes read the database.
   */
  const writeRow = db.kind === 'pglite' ? readRow : getRow;
  return {
    /**
     * `bindResult`, when given, runs in the transaction that inserts the tenant: the API binds the
     * request's Idempotency-Key to it there, so a retry after a lost response returns this tenant
     * instead of creating another (src/http/plugins/idempotency.ts).
     */
    async create(
      accountId: string,
      input: CreateInput,
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
      actor?: AuditActor,
    ): Promise<Tenant> {
      const fields: TenantFields = {
        rutEmpresa: normaliseRutEmpresa(input.rutEmpresa),
        razonSocial: tenantText(input.razonSocial, 'razonSocial'),
        giro: tenantText(input.giro, 'giro'),
        direccion: tenantText(input.direccion, 'direccion'),
        comuna: tenantText(input.comuna, 'comuna'),
        ciudad: tenantText(input.ciudad, 'ciudad'),
        numeroResolucion: input.numeroResolucion,
        fechaResolucion: requireDate(input.fechaResolucion, 'fechaResolucion'),
        acteco: input.acteco ?? [],
        ambiente: input.ambiente ?? 'produccion',
        email: input.email ?? null,
        emisor: Object.fromEntries(Object.entries(cleanIssuer(input.emisor ?? {})).filter(([, v]) => v !== null)) as IssuerDefaults,
        provider: input.provider ?? DEFAULT_PROVIDER,
      };
      const row = await db.transaction(async (tx) => {
        await refuseDuplicate(tx, accountId, fields.rutEmpresa, fields.ambiente);
        const livemode = deps.livemodeOf ? await deps.livemodeOf(accountId, tx) : true;
        const inserted = await tenantsStore.insert(tx, accountId, newId(), fields, clock.now(), livemode);
        await opts.bindResult?.(tx, inserted.id);
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'tenant.created',
          target: { type: 'tenant', id: inserted.id },
          details: { rutEmpresa: fields.rutEmpresa, razonSocial: fields.razonSocial, ambiente: fields.ambiente, provider: fields.provider },
        });
        return inserted;
      });
      return toTenant(row);
    },
    async get(accountId: string, id: string): Promise<Tenant> {
      return toTenant(await getRow(accountId, id));
    },
    /** For other modules: the row, or a 404 that never tells whether it exists elsewhere. */
    getRow,
    readRow,
    writeRow,
    /**
     * For other modules that change tenant rows in their own transaction (the credential summary):
     * call after the commit, before answering, so the change is seen by every process.
     */
    settled,
    /** For other modules, in their transaction: the row (locked with forUpdate), or a 404. */
    requireRow,
    /** For other modules, in their transaction: the row if it exists, without a 404. */
    findRow,
    /** After a credential change, in its transaction: recomputes `status`; says whether it changed. */
    refreshStatus: (tx: Sql, accountId: string, id: string) => tenantsStore.refreshStatus(tx, accountId, id, clock.now()),
    async list(accountId: string, q: { limit: number; iterator?: string | undefined; status?: string | undefined }) {
      const rows = await tenantsStore.list(db, accountId, { limit: q.limit, cursor: decodeIterator(q.iterator), status: q.status });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toTenant);
    },
    /** `tenant` is the row the caller resolved (the tenant-scope plugin, or getRow). */
    async update(tenant: TenantRow, patch: Partial<CreateInput>, actor?: AuditActor): Promise<Tenant> {
      const { account_id: accountId, id } = tenant;
      const clean: Partial<TenantFields> = {};
      if (patch.rutEmpresa !== undefined) clean.rutEmpresa = normaliseRutEmpresa(patch.rutEmpresa);
      if (patch.fechaResolucion !== undefined) clean.fechaResolucion = requireDate(patch.fechaResolucion, 'fechaResolucion');
      for (const k of IDENTITY_TEXT) {
        const v = patch[k];
        if (v !== undefined) clean[k] = tenantText(v, k);
      }
      if (patch.numeroResolucion !== undefined) clean.numeroResolucion = patch.numeroResolucion;
      if (patch.acteco !== undefined) clean.acteco = patch.acteco;
      if (patch.ambiente !== undefined) clean.ambiente = patch.ambiente;
      if (patch.email !== undefined) clean.email = patch.email;
      if (patch.emisor !== undefined) clean.emisor = cleanIssuer(patch.emisor) as IssuerDefaults;
      if (patch.provider !== undefined) clean.provider = patch.provider;
      const row = await db.transaction(async (tx) => {
        if (clean.rutEmpresa !== undefined || clean.ambiente !== undefined)
          await refuseDuplicate(tx, accountId, clean.rutEmpresa ?? tenant.rut_empresa, clean.ambiente ?? tenant.ambiente, id);
        const now = clock.now();
        const updated = await tenantsStore.update(tx, accountId, id, clean, now);
        if (updated)
          await deps.audit?.recordIn(tx, actor, {
            accountId,
            action: 'tenant.updated',
            target: { type: 'tenant', id },
            details: { fields: Object.keys(clean) },
          });
        if (!updated || clean.provider === undefined) return updated;
        return switchedProvider(tx, updated, now);
      });
      if (!row) throw errors.notFound('tenant', id);
      await settled();
      return toTenant(row);
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
