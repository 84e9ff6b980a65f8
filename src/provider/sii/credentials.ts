import type { ProviderCredentials } from '../port.ts';
import { ProviderError } from '../port.ts';
import type { SiiCredentials } from './context.ts';

/** A direct SII call needs the tenant's certificate: the .pfx, its password and the holder's RUT. */
export function siiCredentials(creds: ProviderCredentials): SiiCredentials {
  if (!creds.pfx || creds.pfxPassword === undefined || !creds.rutCertificado) {
    throw new ProviderError(
      'certificate_rejected',
      "A direct SII connection needs the tenant's certificate (.pfx), its password and the holder's RUT: upload the certificate first.",
    );
  }
  return { pfx: creds.pfx, pfxPassword: creds.pfxPassword, rutCertificado: creds.rutCertificado };
}
