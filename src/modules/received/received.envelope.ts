import { envelopeParts, formatRutSii, tryParseRut, verifyEnvelope, type SchemaValidator, type SiiKeys } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import type { TenantRow } from '../tenants/index.ts';
import { envelopeError } from './received.verdict.ts';

/**
 * The first checks of an EnvioDTE addressed to a tenant, the same wherever one arrives (`POST
 * …/received`, the certification's exchange step): the tenant's RUT must be comparable, the
 * envelope verified against the SII's keys the tenant trusts (its mode's) and addressed to it, sound
 * as an envelope (received.verdict.ts, `envelopeError`), and holding at least one DTE. Each caller
 * then checks the carátula fields it needs. No `now`: a received document's CAF is judged at its
 * date of issue, not at reception.
 */
export async function readAddressedEnvelope(
  body: Buffer,
  tenant: TenantRow,
  deps: { siiKeys: SiiKeys; schemaValidator: SchemaValidator },
): Promise<{ v: Awaited<ReturnType<typeof verifyEnvelope>>; parts: ReturnType<typeof envelopeParts>; rutTenant: string }> {
  const tenantRut = tryParseRut(tenant.rut_empresa);
  if (!tenantRut)
    throw errors.conflict(
      'tenant_data_invalid',
      "The tenant's RUT cannot be compared with a document's. Fix it with PATCH /api/v1/tenants/{tenantId}.",
    );
  const rutTenant = formatRutSii(tenantRut);
  const v = await verifyEnvelope(body, { siiKeys: deps.siiKeys, schemaValidator: deps.schemaValidator, expectedRutReceptor: rutTenant });
  const envErr = envelopeError(v);
  if (envErr) throw envErr;
  const parts = envelopeParts(body);
  if (v.dtes.length === 0) throw errors.unprocessable('envelope_invalid', 'The EnvioDTE has no DTE.', { param: 'body' });
  return { v, parts, rutTenant };
}
