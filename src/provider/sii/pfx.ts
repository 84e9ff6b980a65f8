import { createPrivateKey } from 'node:crypto';
import forge from 'node-forge';
import { ProviderError } from '../port.ts';
import type { SignerInput } from '../../dte/index.ts';
import type { SiiCredentials } from './context.ts';

/**
 * The tenant's .pfx opened for one token fetch: its RSA key and certificate, for signing the seed.
 * Nothing is kept; the caller's cache holds the token, not the key. A .pfx that does not open is
 * the certificate's fault, not the SII's: `certificate_rejected`, without the password in the text.
 */
export function signerFromPfx(creds: SiiCredentials): SignerInput {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(creds.pfx.toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, creds.pfxPassword);
  } catch {
    throw new ProviderError('certificate_rejected', 'The certificate (.pfx) could not be opened with its password.');
  }
  const oids = forge.pki.oids as Record<string, string>;
  const bags = (type: string): forge.pkcs12.Bag[] => p12.getBags({ bagType: type })[type] ?? [];
  const key = [...bags(oids.pkcs8ShroudedKeyBag!), ...bags(oids.keyBag!)].find((b) => b.key)?.key;
  // A .pfx may carry the CA chain too: the certificate is the one of the key.
  const n = (key as forge.pki.rsa.PrivateKey | undefined)?.n;
  const certs = bags(oids.certBag!).flatMap((b) => (b.cert ? [b.cert] : []));
  const cert = certs.find((c) => n && (c.publicKey as forge.pki.rsa.PublicKey).n?.equals(n)) ?? certs[0];
  if (!key || !cert) throw new ProviderError('certificate_rejected', 'The .pfx holds no certificate with its private key.');
  const privateKey = createPrivateKey(forge.pki.privateKeyToPem(key as forge.pki.rsa.PrivateKey));
  const certificateDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { privateKey, certificateDer };
}
