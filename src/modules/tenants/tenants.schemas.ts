import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

// Lengths follow the SII schema fields these values end up in (RznSoc 100, GiroEmis 80,
// DirOrigen 70, CmnaOrigen/CiudadOrigen 20), so a tenant that saves is one whose XML validates.
const fields = {
  rutEmpresa: Type.String({ minLength: 3, maxLength: 12, description: 'Company RUT with check digit, dotted: 76.123.456-7.' }),
  razonSocial: Type.String({ minLength: 1, maxLength: 100 }),
  giro: Type.String({ minLength: 1, maxLength: 80 }),
  direccion: Type.String({ minLength: 1, maxLength: 70 }),
  comuna: Type.String({ minLength: 1, maxLength: 20 }),
  ciudad: Type.String({ minLength: 1, maxLength: 20 }),
  numeroResolucion: Type.Integer({ minimum: 0, maximum: 999999, description: 'SII resolution number (0 in certification).' }),
  fechaResolucion: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'YYYY-MM-DD' }),
  acteco: Type.Array(Type.Integer({ minimum: 100000, maximum: 999999 }), {
    minItems: 1,
    maxItems: 4,
    description: 'Economic activity codes (6 digits), needed in facturas.',
  }),
  ambiente: Type.Union([Type.Literal('certificacion'), Type.Literal('produccion')], { default: undefined }),
  email: Nullable(Type.String({ format: 'email', maxLength: 80 })),
};

export const CreateTenantBody = Type.Object(
  {
    rutEmpresa: fields.rutEmpresa,
    razonSocial: fields.razonSocial,
    giro: fields.giro,
    direccion: fields.direccion,
    comuna: fields.comuna,
    ciudad: fields.ciudad,
    numeroResolucion: fields.numeroResolucion,
    fechaResolucion: fields.fechaResolucion,
    acteco: Type.Optional(fields.acteco),
    ambiente: Type.Optional(Type.Union([Type.Literal('certificacion'), Type.Literal('produccion')])),
    email: Type.Optional(fields.email),
  },
  { additionalProperties: false },
);

export const PatchTenantBody = Type.Partial(CreateTenantBody, { additionalProperties: false, minProperties: 1 });

export const TenantSchema = Type.Object(
  {
    id: Uuid(),
    rutEmpresa: Type.String(),
    razonSocial: Type.String(),
    giro: Type.String(),
    direccion: Type.String(),
    comuna: Type.String(),
    ciudad: Type.String(),
    numeroResolucion: Type.Integer(),
    fechaResolucion: Type.String(),
    acteco: Type.Array(Type.Integer()),
    ambiente: Type.String(),
    email: Nullable(Type.String()),
    status: Type.Union([Type.Literal('pending_credentials'), Type.Literal('active')], {
      description: 'pending_credentials until both the billing-provider API key and a certificate are configured, then active.',
    }),
    credentials: Type.Object({
      apiKey: Type.Object({ configured: Type.Boolean(), lastVerified: Nullable(Timestamp()) }),
      certificate: Type.Object({ configured: Type.Boolean() }),
      ready: Type.Boolean(),
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Tenant', title: 'Tenant' },
);
