import { formatRutSii, siiDate, tryParseRut } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import type { PfxInspection } from './pfx/inspect.ts';

/**
 * The checks of an uploaded certificate that depend on the clock or on what the caller declared.
 * The .pfx is the truth (docs/credentials.md "Certificates"): a declared RUT or date that disagrees
 * with it is refused, never stored. The file-level checks are in pfx/inspect.ts.
 */
const DAY_MS = 86_400_000;

export interface Declared {
  rutCertificado?: string;
  fechaVencimiento?: string;
}

export function checkCertificate(info: PfxInspection, now: Date, declared: Declared = {}): { rut: string; fechaVencimiento: string } {
  const notAfter = new Date(info.notAfter);
  const notBefore = new Date(info.notBefore);
  if (notAfter.getTime() <= now.getTime())
    throw errors.unprocessable('certificate_expired', `The certificate expired on ${info.notAfter}. Upload a current certificate.`, {
      param: 'file',
      details: { notAfter: info.notAfter },
    });
  if (notBefore.getTime() > now.getTime())
    throw errors.unprocessable('certificate_not_yet_valid', `The certificate is valid only from ${info.notBefore}.`, {
      param: 'file',
      details: { notBefore: info.notBefore },
    });
  if (!info.rut)
    throw errors.unprocessable(
      'certificate_rut_missing',
      'The certificate carries no holder RUT (subjectAltName 1.3.6.1.4.1.8321.1): it is not a certificate the SII accepts.',
      { param: 'file' },
    );
  if (declared.rutCertificado !== undefined) {
    const given = tryParseRut(declared.rutCertificado);
    if (!given || formatRutSii(given) !== info.rut)
      throw errors.unprocessable(
        'certificate_rut_mismatch',
        `rutCertificado ${declared.rutCertificado} is not the RUT in the certificate (${info.rut}).`,
        { param: 'rutCertificado', details: { rutInCertificate: info.rut } },
      );
  }
  // The expiry as a calendar date in Chile, where the SII and the customer live.
  const fechaVencimiento = siiDate(notAfter);
  if (declared.fechaVencimiento !== undefined) {
    const given = Date.parse(`${declared.fechaVencimiento}T00:00:00Z`);
    // Either calendar reading of notAfter (UTC or Chile) within one day is accepted.
    const diff = Math.min(
      Math.abs(given - Date.parse(`${fechaVencimiento}T00:00:00Z`)),
      Math.abs(given - Date.parse(`${info.notAfter.slice(0, 10)}T00:00:00Z`)),
    );
    if (diff > DAY_MS)
      throw errors.unprocessable(
        'certificate_date_mismatch',
        `fechaVencimiento ${declared.fechaVencimiento} is more than one day from the certificate's expiry (${fechaVencimiento}).`,
        { param: 'fechaVencimiento', details: { notAfter: info.notAfter } },
      );
  }
  return { rut: info.rut, fechaVencimiento };
}
