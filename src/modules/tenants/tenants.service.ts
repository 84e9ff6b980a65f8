import type { Db } from '../../db/types.ts';
import { formatRutDotted, tryParseRut } from '../../dte/rut.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { tenantsStore, type TenantFields, type TenantRow } from './tenants.store.ts';

export interface Tenant extends Omit<TenantFields, 'email'> {
  id: string;
  email: string | null;
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
  status: r.status,
  credentials: {
    apiKey: { configured: r.api_key_verified_at !== null, lastVerified: r.api_key_verified_at?.toISOString() ?? null },
    certificate: { configured: r.certificate_configured },
    ready: r.api_key_verified_at !== null && r.certificate_configured,
  },
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

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

export function checkDate(value: string, param: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value || Number(m[1]) < 2000)
    throw errors.invalid('invalid_date', `${param} '${value}' is not a valid date in YYYY-MM-DD form.`, { param });
  return value;
}

type CreateInput = Omit<TenantFields, 'acteco' | 'ambiente' | 'email'> &
  Partial<Pick<TenantFields, 'acteco' | 'ambiente'>> & { email?: string | null | undefined };

export function createTenantsService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const getRow = async (accountId: string, id: string) => {
    if (!UUID_RE.test(id)) throw errors.notFound('tenant', id);
    const row = await tenantsStore.get(db, accountId, id);
    if (!row) throw errors.notFound('tenant', id);
    return row;
  };
  return {
    async create(accountId: string, input: CreateInput): Promise<Tenant> {
      const fields: TenantFields = {
        rutEmpresa: normaliseRutEmpresa(input.rutEmpresa),
        razonSocial: input.razonSocial.trim(),
        giro: input.giro.trim(),
        direccion: input.direccion.trim(),
        comuna: input.comuna.trim(),
        ciudad: input.ciudad.trim(),
        numeroResolucion: input.numeroResolucion,
        fechaResolucion: checkDate(input.fechaResolucion, 'fechaResolucion'),
        acteco: input.acteco ?? [],
        ambiente: input.ambiente ?? 'produccion',
        email: input.email ?? null,
      };
      for (const k of ['razonSocial', 'giro', 'direccion', 'comuna', 'ciudad'] as const)
        if (!fields[k]) throw errors.invalid('invalid_field', `${k} must not be blank.`, { param: k });
      const row = await db.transaction((tx) => tenantsStore.insert(tx, accountId, newId(), fields, clock.now()));
      return toTenant(row);
    },
    async get(accountId: string, id: string): Promise<Tenant> {
      return toTenant(await getRow(accountId, id));
    },
    /** For other services: the row, or a 404 that never tells whether it exists elsewhere. */
    getRow,
    async list(accountId: string, q: { limit: number; iterator?: string | undefined; status?: string | undefined }) {
      const rows = await tenantsStore.list(db, accountId, { limit: q.limit, cursor: decodeIterator(q.iterator), status: q.status });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toTenant);
    },
    async update(accountId: string, id: string, patch: Partial<CreateInput>): Promise<Tenant> {
      await getRow(accountId, id);
      const clean: Partial<TenantFields> = {};
      if (patch.rutEmpresa !== undefined) clean.rutEmpresa = normaliseRutEmpresa(patch.rutEmpresa);
      if (patch.fechaResolucion !== undefined) clean.fechaResolucion = checkDate(patch.fechaResolucion, 'fechaResolucion');
      for (const k of ['razonSocial', 'giro', 'direccion', 'comuna', 'ciudad'] as const) {
        const v = patch[k];
        if (v === undefined) continue;
        if (!v.trim()) throw errors.invalid('invalid_field', `${k} must not be blank.`, { param: k });
        clean[k] = v.trim();
      }
      if (patch.numeroResolucion !== undefined) clean.numeroResolucion = patch.numeroResolucion;
      if (patch.acteco !== undefined) clean.acteco = patch.acteco;
      if (patch.ambiente !== undefined) clean.ambiente = patch.ambiente;
      if (patch.email !== undefined) clean.email = patch.email;
      const row = await db.transaction((tx) => tenantsStore.update(tx, accountId, id, clean, clock.now()));
      if (!row) throw errors.notFound('tenant', id);
      return toTenant(row);
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
