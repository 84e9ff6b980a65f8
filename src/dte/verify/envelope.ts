import { childElements, childText, firstChild } from '../c14n.ts';
import { parseCertificate, rutFromCertificate } from '../certificate.ts';
import { verifyDteSync } from './document.ts';
import { checkSignature, dsigChild, readSignature } from './signature.ts';
import { checkSchema, readRoot } from './root.ts';
import { issue } from './types.ts';
import type { EnvelopeVerification, VerifyOptions } from './types.ts';
import { numberOrNull, siiRutOrNull, sourceText } from './values.ts';

/** The envelope level: SetDTE signature in context, carátula, then each DTE from its own bytes. */
export function verifyEnvelopeSync(bytes: Buffer, opts: VerifyOptions): EnvelopeVerification {
  const out: EnvelopeVerification = { valid: false, kind: null, errors: [], warnings: [], caratula: null, dtes: [] };
  const { root, name, encoding } = readRoot(
    bytes,
    ['EnvioDTE', 'EnvioBOLETA'],
    'RSC',
    { check: 'not_an_envelope', message: 'The root element is not EnvioDTE or EnvioBOLETA' },
    out.errors,
  );
  if (!root) return out;
  out.kind = name;
  const set = firstChild(root, 'SetDTE');
  const sig = dsigChild(root, 'Signature');
  if (!set) {
    out.errors.push(issue('RSC', 'setdte_missing', 'The envelope has no SetDTE'));
    return out;
  }
  if (!sig) out.errors.push(issue('RFR', 'envelope_signature', 'The envelope is not signed'));
  let envelopeCert: Buffer | null = null;
  if (sig) {
    const parts = readSignature(sig);
    if (typeof parts === 'string') out.errors.push(issue('RFR', 'envelope_signature', parts));
    else if (parts.referenceUri !== `#${set.getAttribute('ID') ?? ''}`) {
      out.errors.push(issue('RFR', 'envelope_signature', `The signature references ${parts.referenceUri}, not the SetDTE`));
    } else {
      envelopeCert = parts.certDer;
      if (opts.now && parts.certDer) {
        const x = parseCertificate(parts.certDer);
        if (opts.now.getTime() > new Date(x.validTo).getTime() || opts.now.getTime() < new Date(x.validFrom).getTime()) {
          out.errors.push(
            issue(
              'RFR',
              'certificate_expired',
              `The envelope's signing certificate is not valid now (valid ${x.validFrom} to ${x.validTo})`,
            ),
          );
        }
      }
      const r = checkSignature(parts, set, [undefined], out.warnings, 'RFR');
      if (!r.ok) out.errors.push(issue('RFR', 'envelope_signature', r.message));
    }
  }

  const car = firstChild(set, 'Caratula');
  const subTotales = car
    ? childElements(car, 'SubTotDTE').map((s) => ({
        tipoDte: Number(childText(s, ['TpoDTE'])),
        cantidad: Number(childText(s, ['NroDTE'])),
      }))
    : [];
  out.caratula = car
    ? {
        rutEmisor: siiRutOrNull(childText(car, ['RutEmisor'])),
        rutEnvia: siiRutOrNull(childText(car, ['RutEnvia'])),
        rutReceptor: siiRutOrNull(childText(car, ['RutReceptor'])),
        fechaResolucion: childText(car, ['FchResol']) ?? null,
        numeroResolucion: numberOrNull(childText(car, ['NroResol'])),
        subTotales,
      }
    : null;
  if (!out.caratula) out.errors.push(issue('RCT', 'caratula_missing', 'The SetDTE has no Caratula'));

  // Each DTE verified standalone, from its own bytes.
  const raw = sourceText(bytes, encoding);
  const decl = `<?xml version="1.0" encoding="${encoding === 'utf-8' ? 'UTF-8' : encoding === 'windows-1252' ? 'windows-1252' : 'ISO-8859-1'}"?>\n`;
  for (const m of raw.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)) {
    const dteBytes = Buffer.from(decl + m[0], encoding === 'utf-8' ? 'utf8' : 'latin1');
    out.dtes.push(verifyDteSync(dteBytes, opts));
  }

  const c = out.caratula;
  if (c) {
    if (envelopeCert) {
      const certRut = rutFromCertificate(envelopeCert);
      if (certRut === null)
        out.warnings.push(issue('RCT', 'rut_envia_unverifiable', 'The signing certificate carries no SII RUT to compare with RutEnvia'));
      else if (certRut !== c.rutEnvia)
        out.errors.push(issue('RCT', 'rut_envia_mismatch', `RutEnvia ${String(c.rutEnvia)} is not the certificate holder ${certRut}`));
    }
    if (opts.expectedRutReceptor !== undefined && c.rutReceptor !== siiRutOrNull(opts.expectedRutReceptor)) {
      out.errors.push(issue('RCT', 'rut_receptor', `Caratula RutReceptor ${String(c.rutReceptor)} should be ${opts.expectedRutReceptor}`));
    }
    const counts = new Map<number, number>();
    out.dtes.forEach((d, i) => {
      if (d.tipoDte !== null) counts.set(d.tipoDte, (counts.get(d.tipoDte) ?? 0) + 1);
      if (d.rutEmisor !== c.rutEmisor) {
        out.errors.push(
          issue(
            'RCT',
            'rut_emisor_mismatch',
            `DTE #${i + 1} was issued by ${String(d.rutEmisor)}, the carátula says ${String(c.rutEmisor)}`,
          ),
        );
      }
    });
    const declared = new Map(c.subTotales.map((s) => [s.tipoDte, s.cantidad]));
    const types = new Set([...counts.keys(), ...declared.keys()]);
    for (const t of types) {
      if ((counts.get(t) ?? 0) !== (declared.get(t) ?? 0)) {
        out.errors.push(
          issue(
            'RCT',
            'subtotal_mismatch',
            `SubTotDTE says ${declared.get(t) ?? 0} documents of type ${t}, the envelope has ${counts.get(t) ?? 0}`,
          ),
        );
      }
    }
  }
  out.valid = out.errors.length === 0 && out.dtes.length > 0 && out.dtes.every((d) => d.valid);
  return out;
}

/** Verifies an EnvioDTE/EnvioBOLETA: schema (if a validator is given), envelope, every DTE. */
export async function verifyEnvelope(bytes: Buffer, opts: VerifyOptions): Promise<EnvelopeVerification> {
  const out = verifyEnvelopeSync(bytes, opts);
  if (opts.schemaValidator && out.kind) await checkSchema(out, bytes, out.kind, opts.schemaValidator);
  return out;
}
