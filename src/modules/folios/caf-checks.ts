import { toSiiRut, verifyCaf, type Caf, type SiiKeys } from '../../dte/index.ts';

/**
 * Whether a CAF may become a range of a tenant: the one check for a CAF the provider sent
 * (folios.request.ts) and a CAF uploaded as a file (folios.upload.ts). It must be for the tenant's
 * RUT (and, for a request, the type asked), its FRMA must verify with the trusted key of its IDK
 * (src/provider/sii-keys.ts), and its private key (RSASK) must be the one of its public key (RSAPK).
 */
export type CafProblemCode = 'caf_rut_mismatch' | 'caf_tipo_mismatch' | 'caf_unknown_idk' | 'caf_signature_invalid' | 'caf_key_mismatch';

export { cafKeysFor, type CafTrustByMode } from '../../provider/index.ts';

export interface CafProblem {
  code: CafProblemCode;
  message: string;
  details: Record<string, unknown>;
}

export function cafProblem(caf: Caf, expected: { rutEmpresa: string; tipoDte?: number }, cafKeys: SiiKeys): CafProblem | null {
  const rut = toSiiRut(expected.rutEmpresa);
  if (caf.rutEmisor !== rut)
    return {
      code: 'caf_rut_mismatch',
      message: `The CAF is for ${caf.rutEmisor}, not for the tenant ${rut}.`,
      details: { rutEmisor: caf.rutEmisor, rutEmpresa: rut },
    };
  if (expected.tipoDte !== undefined && caf.tipoDte !== expected.tipoDte)
    return {
      code: 'caf_tipo_mismatch',
      message: `The CAF is for document type ${caf.tipoDte}, not ${expected.tipoDte}.`,
      details: { tipoDte: caf.tipoDte, expected: expected.tipoDte },
    };
  const check = verifyCaf(caf, cafKeys);
  if (check.valid) return null;
  const trustedIdks = Object.keys(cafKeys).map(Number);
  const first = check.errors[0]!;
  const code: CafProblemCode =
    first.code === 'unknown_idk' ? 'caf_unknown_idk' : first.code === 'frma_invalid' ? 'caf_signature_invalid' : 'caf_key_mismatch';
  return {
    code,
    message: `The CAF does not verify: ${check.errors.map((x) => x.message).join('; ')}.`,
    details: { idk: caf.idk, ...(code === 'caf_key_mismatch' ? {} : { trustedIdks }) },
  };
}
