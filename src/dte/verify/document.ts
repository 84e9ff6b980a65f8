import { childElements, childText } from '../c14n.ts';
import { NS_SII } from '../dte-xml.ts';
import { isBoleta } from '../catalogue.ts';
import { NS_DSIG } from '../xmldsig.ts';
import { checkSignature, dsigChild, readSignature } from './signature.ts';
import { verifyTed } from './ted.ts';
import { checkSchema, readRoot } from './root.ts';
import { issue } from './types.ts';
import type { DteVerification, VerifyOptions } from './types.ts';
import { amountOrNull, numberOrNull, siiRutOrNull, sourceText } from './values.ts';

/** The document level: one DTE parsed as its own document, its signature over its root (Documento, Liquidacion or Exportaciones), then its TED. */
function emptyDteResult(): DteVerification {
  return {
    valid: false,
    documentId: null,
    tipoDte: null,
    folio: null,
    rutEmisor: null,
    rutReceptor: null,
    fechaEmision: null,
    montoTotal: null,
    namespaceInherited: false,
    caf: null,
    errors: [],
    warnings: [],
  };
}

/** Synchronous core of verifyDte (no schema validation). */
export function verifyDteSync(bytes: Buffer, opts: VerifyOptions): DteVerification {
  const out = emptyDteResult();
  const { root, encoding } = readRoot(
    bytes,
    ['DTE'],
    'DTE-3-500',
    { check: 'not_a_dte', message: 'The root element is not <DTE>' },
    out.errors,
  );
  if (!root) return out;
  const documento = childElements(root).find((c) => c.namespaceURI !== NS_DSIG && c.hasAttribute('ID'));
  if (!documento) {
    out.errors.push(issue('DTE-3-500', 'documento_missing', 'The DTE has no Documento with an ID'));
    return out;
  }
  out.documentId = documento.getAttribute('ID');
  out.tipoDte = numberOrNull(childText(documento, ['Encabezado', 'IdDoc', 'TipoDTE']));
  out.folio = numberOrNull(childText(documento, ['Encabezado', 'IdDoc', 'Folio']));
  out.fechaEmision = childText(documento, ['Encabezado', 'IdDoc', 'FchEmis']) ?? null;
  out.rutEmisor = siiRutOrNull(childText(documento, ['Encabezado', 'Emisor', 'RUTEmisor']));
  out.rutReceptor = siiRutOrNull(childText(documento, ['Encabezado', 'Receptor', 'RUTRecep']));
  out.montoTotal = amountOrNull(childText(documento, ['Encabezado', 'Totales', 'MntTotal']));

  const sig = dsigChild(root, 'Signature');
  if (!sig) {
    out.errors.push(issue('DTE-3-505', 'dte_signature', 'The DTE is not signed'));
  } else {
    const parts = readSignature(sig);
    if (typeof parts === 'string') {
      out.errors.push(issue('DTE-3-505', 'dte_signature', parts));
    } else if (parts.referenceUri !== `#${out.documentId}`) {
      out.errors.push(issue('DTE-3-505', 'dte_signature', `The signature references ${parts.referenceUri}, not #${out.documentId}`));
    } else {
      // Strict: as extracted. Lenient: DTEs cut out of an envelope without re-declaring the SiiDte
      // namespace they were signed under (real SII portal documents) — reported as a warning.
      const ownDefault = root.getAttribute('xmlns');
      const contexts = ownDefault ? [undefined] : [undefined, new Map([['', NS_SII]])];
      const r = checkSignature(parts, documento, contexts, out.warnings, 'DTE-3-505');
      if (!r.ok) out.errors.push(issue('DTE-3-505', 'dte_signature', r.message));
      else if (r.contextIndex === 1) {
        out.namespaceInherited = true;
        out.warnings.push(
          issue(
            'DTE-3-505',
            'namespace_inherited',
            'The signature verifies only with the SiiDte namespace the DTE lost when it was extracted',
          ),
        );
      }
    }
  }
  verifyTed(documento, sourceText(bytes, encoding), out, opts);
  out.valid = out.errors.length === 0;
  return out;
}

/** Verifies one DTE as a standalone document (optionally schema-validating it first). */
export async function verifyDte(bytes: Buffer, opts: VerifyOptions): Promise<DteVerification> {
  const out = verifyDteSync(bytes, opts);
  if (opts.schemaValidator && out.tipoDte !== null && isBoleta(out.tipoDte)) {
    // No schema declares a standalone boleta (BOLETADefType exists only inside EnvioBOLETA).
    out.warnings.push(issue('RSC', 'schema_not_applicable', 'Boletas can only be schema-validated inside an EnvioBOLETA'));
  } else if (opts.schemaValidator) {
    await checkSchema(out, bytes, 'DTE', opts.schemaValidator);
  }
  return out;
}
