import { Type } from '@sinclair/typebox';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { TENANT_PROVIDERS, type TenantProvider } from './tenants.provider.ts';

const PROVIDER_DESCRIPTION =
  "How documents reach the SII: `simpleapi` (default) through the billing provider, which needs the tenant's SimpleAPI " +
  "API key and a certificate; `sii` straight to the SII's own services, which need only the certificate. Changing it " +
  'never touches issued documents, and folios obtained either way stay usable.';

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
  // An enum without a type, not a union of literals: any bad value (a wrong word, a number, null)
  // is answered 400 invalid_field "must be one of: simpleapi, sii" (src/http/plugins/errors.ts).
  provider: Type.Unsafe<TenantProvider>({ enum: [...TENANT_PROVIDERS], description: PROVIDER_DESCRIPTION }),
};

// The issuer data beyond the tenant's identity (docs/decisions.md §11), written on each of its documents
// unless the document's own `emisor` overrides it. Lengths are the SII schema's (Telefono 20,
// CorreoEmisor 80, Sucursal 20, CdgSIISucur 9 digits, CdgVendedor 60); unidadSii is only printed.
const issuerField = {
  telefono: Type.String({ minLength: 1, maxLength: 20, examples: ['+56 2 2345 6789'], description: 'Issuer phone (Telefono).' }),
  correo: Type.String({
    minLength: 1,
    maxLength: 80,
    examples: ['facturacion@empresa.cl'],
    description: "Issuer e-mail written on the document (CorreoEmisor); not the tenant's contact `email`.",
  }),
  sucursal: Type.String({ minLength: 1, maxLength: 20, examples: ['Casa Matriz'], description: 'Branch name (Sucursal).' }),
  codigoSucursal: Type.Integer({ minimum: 1, maximum: 999_999_999, examples: [81234567], description: 'SII branch code (CdgSIISucur).' }),
  vendedor: Type.String({ minLength: 1, maxLength: 60, examples: ['V-12'], description: 'Seller code (CdgVendedor).' }),
  unidadSii: Type.String({
    minLength: 1,
    maxLength: 40,
    examples: ['SANTIAGO ORIENTE'],
    description: 'The SII office of the issuer\'s domicile, printed as "S.I.I. - {unidadSii}" (default: the issuer\'s city).',
  }),
};
/** On create: the keys to set. On PATCH: the keys to change; null clears one, absent keys stay. */
const IssuerDefaultsBody = Type.Object(
  {
    telefono: Type.Optional(Nullable(issuerField.telefono)),
    correo: Type.Optional(Nullable(issuerField.correo)),
    sucursal: Type.Optional(Nullable(issuerField.sucursal)),
    codigoSucursal: Type.Optional(Nullable(issuerField.codigoSucursal)),
    vendedor: Type.Optional(Nullable(issuerField.vendedor)),
    unidadSii: Type.Optional(Nullable(issuerField.unidadSii)),
  },
  { additionalProperties: false, description: "Issuer data written on every document unless the document's `emisor` overrides it." },
);

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
    emisor: Type.Optional(IssuerDefaultsBody),
    provider: Type.Optional(fields.provider),
  },
  { additionalProperties: false },
);

export const PatchTenantBody = Type.Partial(CreateTenantBody, { additionalProperties: false, minProperties: 1 });

export const TenantSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
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
    emisor: Type.Object(
      {
        telefono: Nullable(issuerField.telefono),
        correo: Nullable(issuerField.correo),
        sucursal: Nullable(issuerField.sucursal),
        codigoSucursal: Nullable(issuerField.codigoSucursal),
        vendedor: Nullable(issuerField.vendedor),
        unidadSii: Nullable(issuerField.unidadSii),
      },
      { description: 'Issuer data written on every document (null: not set).' },
    ),
    provider: Type.Unsafe<TenantProvider>(Type.String({ enum: [...TENANT_PROVIDERS], description: PROVIDER_DESCRIPTION })),
    status: Type.Union([Type.Literal('pending_credentials'), Type.Literal('active')], {
      description:
        "pending_credentials until what the tenant's provider needs is configured (simpleapi: the billing-provider API key and a " +
        'certificate; sii: a certificate), then active.',
    }),
    credentials: Type.Object({
      apiKey: Type.Object({ configured: Type.Boolean(), lastVerified: Nullable(Timestamp()) }),
      certificate: Type.Object({ configured: Type.Boolean() }),
      ready: Type.Boolean({ description: "What the tenant's provider needs is configured (a direct tenant needs no API key)." }),
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Tenant', title: 'Tenant' },
);
