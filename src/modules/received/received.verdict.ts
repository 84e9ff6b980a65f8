import type { DteVerification, EnvelopeVerification, EstadoRecepDte, VerificationIssue } from '../../dte/index.ts';
import { listCodes, typesWhere } from '../../dte/index.ts';
import { errors, type AppError } from '../../errors.ts';

/**
 * What the engine's verification of an uploaded envelope means for the API (docs/received.md,
 * "Verification order" and "Error codes"). The engine reports every problem it finds, each with an
 * SII-style code and a stable check name (src/dte/README.md, "Verification"); the API answers
 * with the *first* of them in the order below, so one forgery always gets the same code:
 *
 *  envelope: malformed XML → not an EnvioDTE → schema → envelope signature → carátula → receptor;
 *  document: malformed → TED data or signature (altered after stamping) → document signature →
 *            CAF → type not receivable → receptor.
 *
 * Each document code also has its EstadoRecepDTE for the RespuestaEnvioDTE
 * (RespuestaEnvioDTE_v10.xsd): 1 signature, 3 receptor, 99 anything else.
 */
interface Rule {
  match: (i: VerificationIssue) => boolean;
  code: string;
  message: string;
}

const check =
  (...names: string[]) =>
  (i: VerificationIssue) =>
    names.includes(i.check);

const ENVELOPE_RULES: Rule[] = [
  { match: check('xml_malformed'), code: 'xml_malformed', message: 'The body is not well-formed XML' },
  {
    match: check('not_an_envelope', 'setdte_missing'),
    code: 'envelope_invalid',
    message: 'The body is not an EnvioDTE (root EnvioDTE with a SetDTE)',
  },
  {
    match: check('schema'),
    code: 'envelope_schema_invalid',
    message: 'The EnvioDTE is not valid against the SII schema (EnvioDTE_v10.xsd)',
  },
  {
    match: check('envelope_signature', 'certificate_expired'),
    code: 'envelope_signature_invalid',
    message: "The envelope's signature over SetDTE does not verify: it was altered after signing, or not signed",
  },
  {
    match: check('caratula_missing', 'rut_envia_mismatch', 'rut_emisor_mismatch', 'subtotal_mismatch'),
    code: 'envelope_caratula_invalid',
    message: "The envelope's carátula does not match its contents",
  },
  {
    match: check('rut_receptor'),
    code: 'receptor_mismatch',
    message: 'The envelope is addressed to another company (Caratula RutReceptor)',
  },
];

export interface DocumentRule extends Rule {
  estado: EstadoRecepDte;
}

const DOCUMENT_RULES: DocumentRule[] = [
  {
    match: check('xml_malformed', 'not_a_dte', 'documento_missing', 'ted_missing'),
    code: 'document_malformed',
    message: 'The DTE cannot be read',
    estado: 99,
  },
  {
    match: check('ted_data', 'ted_signature'),
    code: 'document_altered',
    message: "The DTE's data differ from its timbre (TED): amounts, RUTs, folio or date were changed after it was stamped",
    estado: 1,
  },
  {
    match: check('dte_signature'),
    code: 'document_signature_invalid',
    message: "The DTE's signature does not verify: it was altered after signing, or not signed",
    estado: 1,
  },
  {
    match: (i) => i.code.startsWith('CAF-'),
    code: 'document_caf_invalid',
    message: "The DTE's folio authorisation (CAF) is not valid: not signed by the SII, expired, or for another issuer, type or range",
    estado: 99,
  },
];

/** The envelope-level problem the API answers with, or null when the envelope itself is sound. */
export function envelopeError(v: EnvelopeVerification): AppError | null {
  if (v.errors.length === 0) {
    if (v.kind !== 'EnvioDTE')
      return errors.unprocessable(
        'envelope_invalid',
        'Only an EnvioDTE can be received: boletas (EnvioBOLETA) are not exchanged between companies.',
        { param: 'body' },
      );
    return null;
  }
  for (const rule of ENVELOPE_RULES) {
    const found = v.errors.filter(rule.match);
    if (found.length === 0) continue;
    const opts = {
      param: 'body',
      details: { issues: found.slice(0, 10).map((i) => ({ sii: i.code, check: i.check, message: i.message.slice(0, 500) })) },
    };
    const message = `${rule.message}: ${found[0]!.message.slice(0, 300)}`;
    return rule.code === 'xml_malformed' ? errors.invalid(rule.code, message, opts) : errors.unprocessable(rule.code, message, opts);
  }
  const first = v.errors[0]!;
  return errors.unprocessable('envelope_invalid', `The envelope cannot be received: ${first.message.slice(0, 300)}`, {
    param: 'body',
    details: { issues: [{ sii: first.code, check: first.check, message: first.message.slice(0, 500) }] },
  });
}

export interface DocumentProblem {
  code: string;
  message: string;
  estado: EstadoRecepDte;
  issues: { sii: string; check: string; message: string }[];
}

/**
 * Why one verified document cannot be received, or null when it can. `receivable` says whether
 * its type can be named in a RespuestaEnvioDTE; `rutTenant` is the tenant's RUT in SII form.
 */
export function documentProblem(
  d: DteVerification,
  opts: { rutTenant: string; receivable: (tipo: number) => boolean },
): DocumentProblem | null {
  for (const rule of DOCUMENT_RULES) {
    const found = d.errors.filter(rule.match);
    if (found.length > 0)
      return {
        code: rule.code,
        message: `${rule.message}: ${found[0]!.message.slice(0, 300)}`,
        estado: rule.estado,
        issues: found.slice(0, 10).map((i) => ({ sii: i.code, check: i.check, message: i.message.slice(0, 500) })),
      };
  }
  if (d.errors.length > 0) {
    const first = d.errors[0]!;
    return {
      code: 'document_invalid',
      message: `The DTE cannot be received: ${first.message.slice(0, 300)}`,
      estado: 99,
      issues: [{ sii: first.code, check: first.check, message: first.message.slice(0, 500) }],
    };
  }
  if (d.tipoDte === null || !opts.receivable(d.tipoDte))
    return {
      code: 'document_type_unsupported',
      message: `A type ${String(d.tipoDte)} document cannot be received: only ${listCodes(typesWhere((t) => t.receivable))} are exchanged between companies`,
      estado: 99,
      issues: [],
    };
  if (d.rutReceptor !== opts.rutTenant)
    return {
      code: 'receptor_mismatch',
      message: `The DTE is addressed to ${String(d.rutReceptor)}, not to this tenant (${opts.rutTenant})`,
      estado: 3,
      issues: [],
    };
  return null;
}
