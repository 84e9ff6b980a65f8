import crypto from 'node:crypto';
import forge from 'node-forge';
import { rutFromCertificate } from '../../dte/index.ts';

/**
 * What SimpleAPI does with the .pfx it receives: open it with the password and use the
 * certificate to log in to the SII. The emulator checks the same things (opens, holder RUT,
 * validity); when they fail the SII refuses the login and SimpleAPI answers an empty 401, the
 * same as for a bad key [D9] (server.ts). The reason is kept for the emulator's log only.
 * Opening a PKCS#12 in JavaScript is slow (key derivation), so verdicts are cached by a hash of
 * pfx + password; neither is kept.
 */
export interface OpenedPfx {
  rut: string | null;
  /** The holder's name (subject CN), as the SII shows who annulled folios. */
  name: string;
  notBefore: Date;
  notAfter: Date;
}

export type CertificateVerdict = ({ ok: true } & OpenedPfx) | { ok: false; reason: string };

const cache = new Map<string, OpenedPfx | string>();
const MAX_CACHE = 256;

function open(pfx: Buffer, password: string): OpenedPfx | string {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(pfx.toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, password);
  } catch {
    return 'El certificado no se pudo abrir: archivo dañado o contraseña incorrecta';
  }
  const oids = forge.pki.oids as Record<string, string>;
  const bagsOf = (type: string): forge.pkcs12.Bag[] => p12.getBags({ bagType: type })[type] ?? [];
  const certs = bagsOf(oids.certBag!);
  const keyBags = [...bagsOf(oids.pkcs8ShroudedKeyBag!), ...bagsOf(oids.keyBag!)];
  const cert = certs.find((b) => b.cert)?.cert;
  if (!cert || keyBags.length === 0) return 'El archivo no contiene un certificado con su clave privada';
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  let rut: string | null = null;
  try {
    rut = rutFromCertificate(der);
  } catch {
    rut = null;
  }
  const cn = cert.subject.getField('CN') as { value?: unknown } | null;
  let name = typeof cn?.value === 'string' ? cn.value : '';
  try {
    name = forge.util.decodeUtf8(name);
  } catch {
    /* a Latin-1 or printable string: kept as is */
  }
  return { rut, name, notBefore: cert.validity.notBefore, notAfter: cert.validity.notAfter };
}

/** Opens and checks the caller's certificate as the SII's login would. */
export function checkCertificate(
  pfx: Buffer | undefined,
  password: string | undefined,
  rutCertificado: string | undefined,
  now: Date,
): CertificateVerdict {
  if (!pfx || pfx.length === 0 || typeof password !== 'string')
    return { ok: false, reason: 'Falta el certificado digital (.pfx) o su contraseña' };
  const key = crypto.createHash('sha256').update(pfx).update('\0').update(password).digest('hex');
  let v = cache.get(key);
  if (v === undefined) {
    v = open(pfx, password);
    if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
    cache.set(key, v);
  }
  if (typeof v === 'string') return { ok: false, reason: v };
  if (now < v.notBefore || now > v.notAfter) return { ok: false, reason: 'El certificado digital no está vigente' };
  if (rutCertificado !== undefined && v.rut && normalise(rutCertificado) !== normalise(v.rut)) {
    return { ok: false, reason: `El RUT del certificado (${v.rut}) no corresponde a ${rutCertificado}` };
  }
  return { ok: true, ...v };
}

const normalise = (rut: string) => rut.replace(/\./g, '').replace(/^0+/, '').toUpperCase();
