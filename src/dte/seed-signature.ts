import { sign } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { childElements, parseXml } from './c14n.ts';
import { parseCertificate, rutFromCertificate } from './certificate.ts';
import type { SignerInput } from './types.ts';
import { checkSignature, readSignature, sameKey } from './verify/signature.ts';
import { escapeText } from './xml-escape.ts';
import { ALG_C14N, ALG_ENVELOPED, ALG_RSA_SHA1, ALG_SHA1, NS_DSIG, prepareSigner, sha1Base64, type PreparedSigner } from './xmldsig.ts';

/**
 * The SII's signed seed (autenticación automática, docs/sources.md §1.2; manual
 * 2007-11-18-autenticacion-automatica-v1.9, fig. 1.3–1.4): `<getToken><item><Semilla>…</Semilla>
 * </item><Signature/></getToken>`, an enveloped XML-DSig with Reference URI="", the
 * enveloped-signature transform, inclusive C14N 1.0, rsa-sha1 and sha1, KeyInfo with RSAKeyValue
 * and X509Certificate. The same document buys a SOAP token (GetTokenFromSeed) and a boleta REST
 * token (boleta.electronica.token).
 *
 * Written as two lines, the declaration and the document (the SII's boleta API notes advise it
 * "para que no se rompa el digest", §1.5): no whitespace anywhere, so the digest input is exactly
 * `<getToken><item><Semilla>…</Semilla></item></getToken>` (the Signature removed by the
 * enveloped transform leaves nothing behind).
 */
const SIGNED_INFO_INNER =
  `<CanonicalizationMethod Algorithm="${ALG_C14N}"></CanonicalizationMethod>` +
  `<SignatureMethod Algorithm="${ALG_RSA_SHA1}"></SignatureMethod>` +
  `<Reference URI=""><Transforms><Transform Algorithm="${ALG_ENVELOPED}"></Transform></Transforms>` +
  `<DigestMethod Algorithm="${ALG_SHA1}"></DigestMethod>`;

export function signSeed(semilla: string, signerInput: SignerInput | PreparedSigner): string {
  const signer = prepareSigner(signerInput);
  const body = `<item><Semilla>${escapeText(semilla)}</Semilla></item>`;
  const digest = sha1Base64(`<getToken>${body}</getToken>`);
  const inner = `${SIGNED_INFO_INNER}<DigestValue>${digest}</DigestValue></Reference>`;
  const signedInfo = `<SignedInfo xmlns="${NS_DSIG}">${inner}</SignedInfo>`;
  const value = sign('sha1', Buffer.from(signedInfo, 'utf8'), signer.privateKey).toString('base64');
  const keyInfo = signer.keyInfoXml.replace(/\n/g, '');
  return (
    `<?xml version="1.0"?>\n<getToken>${body}<Signature xmlns="${NS_DSIG}"><SignedInfo>${inner}</SignedInfo>` +
    `<SignatureValue>${value}</SignatureValue>${keyInfo}</Signature></getToken>`
  );
}

/**
 * The SII's check of a signed seed, with the ESTADO codes of the manual's table (fig. 1.7):
 * 02 not XML (SAXException) · 04 no Signature · 06 no Semilla · 11 no certificate · 21 the
 * KeyValue is not the certificate's key · 05 the signature does not verify. Seed validity (08)
 * and the holder's registration (-07) are the caller's, which keeps the seeds.
 */
export type SeedVerification =
  | { ok: true; semilla: string; certificateDer: Buffer; rutTitular: string | null; notBefore: Date; notAfter: Date }
  | { ok: false; estado: '02' | '04' | '05' | '06' | '11' | '21'; glosa: string };

export const SEED_ERRORS = {
  '02': 'XML Invalido (SAXException), funcion valSignedXml',
  '04': 'XML Invalido, elemento "Signature" no existe, funcion valSignedXml',
  '05': 'XML Invalido, firma invalida, funcion valSignedXml',
  '06': 'XML Invalido, elemento "Semilla" no existe, funcion getSeed',
  '11': 'XML Invalido, elemento "Certificate" no existe, funcion getCertificado',
  '21': 'Firma invalida (La llave publica no coincide con la del certificado)',
} as const;

const fail = (estado: keyof typeof SEED_ERRORS): SeedVerification => ({ ok: false, estado, glosa: SEED_ERRORS[estado] });

export function verifySignedSeed(xml: string): SeedVerification {
  let root: Element;
  try {
    const doc = parseXml(xml);
    const r = doc.documentElement;
    if (!r) return fail('02');
    root = r as unknown as Element;
  } catch {
    return fail('02');
  }
  const sig = childElements(root, 'Signature').find((e) => e.namespaceURI === NS_DSIG);
  if (!sig) return fail('04');
  const semilla = root.getElementsByTagName('Semilla').item(0)?.textContent?.trim();
  if (!semilla) return fail('06');
  const parts = readSignature(sig);
  if (typeof parts === 'string') return fail('05');
  if (!parts.certKey || !parts.certDer) return fail('11');
  if (parts.keyValueKey && !sameKey(parts.keyValueKey, parts.certKey)) return fail('21');
  if (parts.referenceUri !== '') return fail('05');
  // The enveloped transform: the document without its Signature.
  const copy = root.cloneNode(true) as Element;
  const copySig = childElements(copy, 'Signature').find((e) => e.namespaceURI === NS_DSIG);
  if (copySig) copy.removeChild(copySig);
  const checked = checkSignature({ ...parts, keyValueKey: null }, copy, [undefined], [], 'SEED');
  if (!checked.ok) return fail('05');
  let rutTitular: string | null = null;
  try {
    rutTitular = rutFromCertificate(parts.certDer);
  } catch {
    rutTitular = null;
  }
  const x = parseCertificate(parts.certDer);
  return { ok: true, semilla, certificateDer: parts.certDer, rutTitular, notBefore: new Date(x.validFrom), notAfter: new Date(x.validTo) };
}
