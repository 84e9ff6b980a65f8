import { Type } from '@sinclair/typebox';
import { tryParseRut } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import type { MultipartBody } from '../../http/multipart.ts';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { requireDate } from '../../lib/validate.ts';
import { TENANT_PROVIDERS, type TenantProvider } from '../tenants/index.ts';
import type { CertificateInput } from './certificates.service.ts';

export const ApiKeyBody = Type.Object(
  {
    apiKey: Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: '^[\\x21-\\x7e]+$',
      description: "The tenant's billing-provider (SimpleAPI) API key. Verified with the provider before it is saved.",
    }),
  },
  { additionalProperties: false },
);

export const ApiKeyResult = Type.Object({
  apiKey: Type.Object({ configured: Type.Boolean(), lastVerified: Nullable(Timestamp()) }),
});

const certificateEntryFields = {
  id: Uuid(),
  livemode: Livemode(),
  rutCertificado: Type.String({ description: 'Holder RUT, dotted form, as read from the certificate.' }),
  nombreTitular: Type.String(),
  fechaVencimiento: Type.String({ description: "The certificate's expiry date (YYYY-MM-DD, Chile time), read from the certificate." }),
  esPrincipal: Type.Boolean({ description: 'The primary certificate signs documents.' }),
  createdAt: Timestamp(),
};

export const CertificateEntrySchema = Type.Object(certificateEntryFields, { title: 'CertificateEntry' });

export const CertificatePatchBody = Type.Object(
  {
    esPrincipal: Type.Boolean({
      description:
        'true makes this certificate the primary (the one that signs) and demotes the others. false is refused: make another certificate primary instead.',
    }),
  },
  { additionalProperties: false },
);

export const CredentialStatusSchema = Type.Object(
  {
    provider: Type.Unsafe<TenantProvider>(
      Type.String({
        enum: [...TENANT_PROVIDERS],
        description:
          "The tenant's provider (Tenant.provider), which decides what it needs: `simpleapi` the billing-provider API key and a " +
          'certificate; `sii` (straight to the SII) a certificate only.',
      }),
    ),
    apiKey: Type.Object({
      configured: Type.Boolean(),
      lastVerified: Nullable(Timestamp('When the provider last accepted the key; null when not configured.')),
      required: Type.Boolean({
        examples: [true],
        description: "Whether the tenant's provider needs the key: false for a direct tenant (`sii`).",
      }),
    }),
    certificates: Type.Array(Type.Object(certificateEntryFields)),
    ready: Type.Boolean({
      description: "What the tenant's provider needs is configured: the API key and a certificate (simpleapi), or a certificate (sii).",
    }),
    missing: Type.Array(Type.Union([Type.Literal('apiKey'), Type.Literal('certificate')]), {
      maxItems: 2,
      description: 'What is still needed before the tenant can issue; empty when ready.',
    }),
  },
  { title: 'CredentialStatus' },
);

export const ActivationLinkSchema = Type.Object({
  token: Type.String({ description: 'act_… — shown once; stored only as its SHA-256.' }),
  url: Type.String({ description: '{APP_URL}/activate/<token>: the hosted activation page.' }),
  expiresAt: Timestamp(),
});

/** For the OpenAPI document; the multipart body itself is checked by parseCertificateForm. */
export const CertificateForm = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The .pfx / .p12 file (at most CERTIFICATE_LIMIT_BYTES, 256 KiB by default).' }),
    password: Type.String({ maxLength: 256, description: 'Password of the .pfx.' }),
    rutCertificado: Type.String({ maxLength: 12, description: 'Holder RUT; must be the one in the certificate.' }),
    nombreTitular: Type.String({ minLength: 1, maxLength: 100 }),
    fechaVencimiento: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: "Within one day of the certificate's expiry." }),
    esPrincipal: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'Default false; the first certificate is always primary.' }),
    ),
  },
  { additionalProperties: false },
);

const FIELDS = ['password', 'rutCertificado', 'nombreTitular', 'fechaVencimiento', 'esPrincipal'] as const;

/** The certificate form, field by field, with the same error shapes as JSON validation. */
export function parseCertificateForm(body: MultipartBody): CertificateInput {
  for (const name of Object.keys(body.fields))
    if (!(FIELDS as readonly string[]).includes(name))
      throw errors.invalid(
        'invalid_field',
        name === 'file'
          ? "The field 'file' must be a file part (with a filename)."
          : `Unknown field '${name}'. Check the spelling against the API reference at /docs.`,
        { param: name },
      );
  for (const name of Object.keys(body.files))
    if (name !== 'file')
      throw errors.invalid('invalid_field', `Unknown file field '${name}'; send the certificate as 'file'.`, { param: name });
  const file = body.files.file;
  if (!file) throw errors.invalid('invalid_field', "The field 'file' is required: the .pfx certificate file.", { param: 'file' });
  const required = (name: (typeof FIELDS)[number]) => {
    const v = body.fields[name];
    if (v === undefined) throw errors.invalid('invalid_field', `The field '${name}' is required.`, { param: name });
    return v;
  };
  const password = required('password');
  if (password.length > 256)
    throw errors.invalid('invalid_field', "The field 'password' must be at most 256 characters.", { param: 'password' });
  const rutCertificado = required('rutCertificado').trim();
  if (!tryParseRut(rutCertificado))
    throw errors.invalid('invalid_rut', `rutCertificado '${rutCertificado.slice(0, 20)}' is not a valid RUT (like 12.345.678-5).`, {
      param: 'rutCertificado',
    });
  const nombreTitular = required('nombreTitular').trim();
  if (nombreTitular.length < 1 || nombreTitular.length > 100)
    throw errors.invalid('invalid_field', "The field 'nombreTitular' must be 1 to 100 characters.", { param: 'nombreTitular' });
  const fechaVencimiento = requireDate(required('fechaVencimiento').trim(), 'fechaVencimiento');
  const principal = body.fields.esPrincipal?.trim().toLowerCase();
  if (principal !== undefined && principal !== 'true' && principal !== 'false')
    throw errors.invalid('invalid_field', "The field 'esPrincipal' must be true or false.", { param: 'esPrincipal' });
  return { file: file.data, password, rutCertificado, nombreTitular, fechaVencimiento, esPrincipal: principal === 'true' };
}
