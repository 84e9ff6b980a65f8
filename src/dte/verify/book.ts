import { childText, firstChild } from '../c14n.ts';
import { NS_XSI } from '../envelope.ts';
import { parseCertificate, rutFromCertificate } from '../certificate.ts';
import { checkSignature, dsigChild, readSignature } from './signature.ts';
import { checkSchema, readRoot } from './root.ts';
import { issue } from './types.ts';
import type { BookVerification, VerifyOptions } from './types.ts';
import { numberOrNull, siiRutOrNull } from './values.ts';

/**
 * A book file (LibroCompraVenta, LibroGuia; docs/certification.md "Books"): schema (when a
 * validator is given), the EnvioLibro signature *in context* (it inherits the root's `xmlns` and
 * `xmlns:xsi`, as books/book-sign.ts signs it), the carátula's RutEnvia against the signer's
 * certificate. Codes as for envelopes: RSC schema/malformed, RFR signature, RCT carátula. Whether
 * the totals agree with the details is the receiver's review, not a verification.
 */
export async function verifyBook(bytes: Buffer, opts: Pick<VerifyOptions, 'schemaValidator' | 'now'> = {}): Promise<BookVerification> {
  const out = verifyBookSync(bytes, opts);
  if (opts.schemaValidator && out.kind) await checkSchema(out, bytes, out.kind, opts.schemaValidator);
  return out;
}

export function verifyBookSync(bytes: Buffer, opts: Pick<VerifyOptions, 'now'> = {}): BookVerification {
  const out: BookVerification = { valid: false, kind: null, errors: [], warnings: [], caratula: null };
  const { root, name } = readRoot(
    bytes,
    ['LibroCompraVenta', 'LibroGuia'],
    'RSC',
    { check: 'not_a_book', message: 'The root element is not LibroCompraVenta or LibroGuia' },
    out.errors,
  );
  if (!root) return out;
  out.kind = name;
  const envio = firstChild(root, 'EnvioLibro');
  if (!envio) {
    out.errors.push(issue('RSC', 'envio_libro_missing', 'The book has no EnvioLibro'));
    return out;
  }
  const car = firstChild(envio, 'Caratula');
  if (car) {
    out.caratula = {
      rutEmisor: siiRutOrNull(childText(car, ['RutEmisorLibro'])),
      rutEnvia: siiRutOrNull(childText(car, ['RutEnvia'])),
      periodo: childText(car, ['PeriodoTributario']) ?? null,
      tipoOperacion: childText(car, ['TipoOperacion']) ?? null,
      tipoLibro: childText(car, ['TipoLibro']) ?? null,
      tipoEnvio: childText(car, ['TipoEnvio']) ?? null,
      folioNotificacion: numberOrNull(childText(car, ['FolioNotificacion'])),
    };
  } else out.errors.push(issue('RCT', 'caratula_missing', 'The EnvioLibro has no Caratula'));

  const sig = dsigChild(root, 'Signature');
  if (!sig) out.errors.push(issue('RFR', 'book_signature', 'The book is not signed'));
  else {
    const parts = readSignature(sig);
    if (typeof parts === 'string') out.errors.push(issue('RFR', 'book_signature', parts));
    else if (parts.referenceUri !== `#${envio.getAttribute('ID') ?? ''}`) {
      out.errors.push(issue('RFR', 'book_signature', `The signature references ${parts.referenceUri}, not the EnvioLibro`));
    } else {
      // In context: the parsed EnvioLibro already inherits the root's namespaces; the second
      // context is for a signer that canonicalised it with xmlns:xsi declared explicitly.
      const r = checkSignature(parts, envio, [undefined, new Map([['xsi', NS_XSI]])], out.warnings, 'RFR');
      if (!r.ok) out.errors.push(issue('RFR', 'book_signature', r.message));
      if (parts.certDer && opts.now) {
        const x = parseCertificate(parts.certDer);
        if (opts.now.getTime() > new Date(x.validTo).getTime() || opts.now.getTime() < new Date(x.validFrom).getTime())
          out.errors.push(
            issue('RFR', 'certificate_expired', `The book's signing certificate is not valid now (valid ${x.validFrom} to ${x.validTo})`),
          );
      }
      if (parts.certDer && out.caratula) {
        const certRut = rutFromCertificate(parts.certDer);
        if (certRut !== null && certRut !== out.caratula.rutEnvia)
          out.errors.push(
            issue('RCT', 'rut_envia_mismatch', `RutEnvia ${String(out.caratula.rutEnvia)} is not the certificate holder ${certRut}`),
          );
      }
    }
  }
  out.valid = out.errors.length === 0;
  return out;
}
