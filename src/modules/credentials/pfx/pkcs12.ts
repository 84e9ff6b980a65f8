import crypto from 'node:crypto';
import forge from 'node-forge';

/**
 * A PKCS#12 (.pfx/.p12) reader on Node's native crypto (RFC 7292, PKCS#5 v2.1). node-forge reads
 * the ASN.1 (DER or BER) and supplies RC2, which OpenSSL 3 only ships in its legacy provider; all
 * key derivation, MAC and bulk decryption run natively, so a file with a high iteration count
 * costs milliseconds instead of seconds (forge's own PKCS#12 code derives keys in plain JS).
 *
 * Supported: password-integrity mode with an HMAC (SHA-1/224/256/384/512) or without a MAC;
 * PBES2 (PBKDF2 + AES-CBC or 3DES-CBC) and the PKCS#12 PBEs (3DES, 2-key 3DES, RC2-40,
 * RC2-128); keyBag, pkcs8ShroudedKeyBag, certBag (X.509) and nested safeContentsBag.
 * Untrusted input is bounded: ASN.1 depth, nesting of bags, iteration counts per derivation and in
 * total, so the CPU a file can cost is a few seconds at most whatever it contains.
 */
export type Pkcs12ErrorKind = 'unreadable' | 'password' | 'unsupported';

export class Pkcs12Error extends Error {
  readonly kind: Pkcs12ErrorKind;
  constructor(kind: Pkcs12ErrorKind, message: string) {
    super(message);
    this.name = 'Pkcs12Error';
    this.kind = kind;
  }
}

export interface DecodedPkcs12 {
  /** X.509 certificates (DER) in file order. */
  certificates: Buffer[];
  /** Private keys as unencrypted PKCS#8 DER, in file order. */
  privateKeys: Buffer[];
  /** true = MAC checked; false = the file has no MAC; null = not asked to check. */
  macVerified: boolean | null;
}

export interface DecodeOptions {
  /** Check the MAC (default true). Off only for files already checked once (stored .pfx). */
  verifyMac?: boolean;
  /** Decrypt certificate bags too (default true). */
  certificates?: boolean;
  /** Highest iteration count accepted for any key derivation (default 1,000,000). */
  maxIterations?: number;
  /**
   * Iterations allowed across all key derivations of the file (default 3,000,000), so a file
   * made of many expensive bags costs a few seconds of CPU at most.
   */
  iterationBudget?: number;
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
} as const;

const DIGESTS: Record<string, { name: string; u: number; v: number }> = {
  '1.3.14.3.2.26': { name: 'sha1', u: 20, v: 64 },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224', u: 28, v: 64 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', u: 32, v: 64 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', u: 48, v: 128 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', u: 64, v: 128 },
};

const HMAC_PRF: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};

const PBES2_CIPHERS: Record<string, { name: string; keyLength: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLength: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLength: 32 },
  '1.2.840.113549.3.7': { name: 'des-ede3-cbc', keyLength: 24 },
};

/** PKCS#12 PBEs (RFC 7292 appendix C): SHA-1 key derivation, then the named cipher. */
const PKCS12_PBES: Record<string, { cipher: 'des-ede3-cbc' | 'des-ede-cbc' | 'rc2'; keyLength: number; rc2Bits?: number }> = {
  '1.2.840.113549.1.12.1.3': { cipher: 'des-ede3-cbc', keyLength: 24 },
  '1.2.840.113549.1.12.1.4': { cipher: 'des-ede-cbc', keyLength: 16 },
  '1.2.840.113549.1.12.1.5': { cipher: 'rc2', keyLength: 16, rc2Bits: 128 },
  '1.2.840.113549.1.12.1.6': { cipher: 'rc2', keyLength: 5, rc2Bits: 40 },
};

const MAX_ASN1_DEPTH = 32;
const MAX_BAG_NESTING = 4;
const DEFAULT_MAX_ITERATIONS = 1_000_000;
const DEFAULT_ITERATION_BUDGET = 3_000_000;

type Node = forge.asn1.Asn1;
const { Class, Type } = forge.asn1;

const unreadable = (what: string) => new Pkcs12Error('unreadable', what);

// forge >= 1.3 takes an options object (with maxDepth); @types/node-forge knows only the boolean.
const FROM_DER_OPTIONS = { strict: true, parseAllBytes: false, decodeBitStrings: false, maxDepth: MAX_ASN1_DEPTH } as unknown as boolean;

function parseAsn1(bytes: Buffer, what: string): Node {
  try {
    return forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')), FROM_DER_OPTIONS);
  } catch {
    throw unreadable(`${what} is not valid ASN.1`);
  }
}

const children = (n: Node | undefined, what: string): Node[] => {
  if (!n || n.tagClass !== Class.UNIVERSAL || (n.type !== Type.SEQUENCE && n.type !== Type.SET) || !Array.isArray(n.value))
    throw unreadable(`${what}: expected a SEQUENCE`);
  return n.value as Node[];
};

const oidOf = (n: Node | undefined, what: string): string => {
  if (!n || n.tagClass !== Class.UNIVERSAL || n.type !== Type.OID || typeof n.value !== 'string')
    throw unreadable(`${what}: expected an OID`);
  return forge.asn1.derToOid(n.value);
};

function octetsOf(n: Node | undefined, what: string, depth = 0): Buffer {
  if (!n || depth > 4) throw unreadable(`${what}: expected an OCTET STRING`);
  // BER allows a constructed OCTET STRING made of pieces; [0] IMPLICIT OCTET STRING has a context tag.
  const isOctets = (n.tagClass === Class.UNIVERSAL && n.type === Type.OCTETSTRING) || n.tagClass === Class.CONTEXT_SPECIFIC;
  if (!isOctets) throw unreadable(`${what}: expected an OCTET STRING`);
  if (typeof n.value === 'string') return Buffer.from(n.value, 'binary');
  return Buffer.concat((n.value as Node[]).map((c) => octetsOf(c, what, depth + 1)));
}

function intOf(n: Node | undefined, what: string): number {
  if (!n || n.tagClass !== Class.UNIVERSAL || n.type !== Type.INTEGER || typeof n.value !== 'string')
    throw unreadable(`${what}: expected an INTEGER`);
  const bytes = Buffer.from(n.value, 'binary');
  if (bytes.length === 0 || bytes.length > 6 || (bytes[0]! & 0x80) !== 0) throw unreadable(`${what}: integer out of range`);
  return bytes.readUIntBE(0, bytes.length);
}

/** The single child of an `[0] EXPLICIT` wrapper. */
function explicit0(n: Node | undefined, what: string): Node {
  if (!n || n.tagClass !== Class.CONTEXT_SPECIFIC || n.type !== 0 || !Array.isArray(n.value) || !n.value[0])
    throw unreadable(`${what}: expected [0] content`);
  return n.value[0] as Node;
}

const bmpPassword = (password: string): Buffer => {
  // BMPString, big-endian, with a two-byte terminator (RFC 7292 B.1).
  const le = Buffer.from(`${password}\0`, 'utf16le');
  return le.swap16();
};

/** RFC 7292 appendix B.2 key derivation, with native hashing. */
export function pkcs12Kdf(
  hash: { name: string; u: number; v: number },
  password: Buffer,
  salt: Buffer,
  id: number,
  iterations: number,
  n: number,
): Buffer {
  const { u, v } = hash;
  const fill = (src: Buffer) => {
    if (src.length === 0) return Buffer.alloc(0);
    const len = v * Math.ceil(src.length / v);
    const out = Buffer.alloc(len);
    for (let i = 0; i < len; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([fill(salt), fill(password)]);
  const out: Buffer[] = [];
  for (let produced = 0; produced < n; produced += u) {
    let A = crypto.hash(hash.name, Buffer.concat([D, I]), 'buffer');
    for (let r = 1; r < iterations; r++) A = crypto.hash(hash.name, A, 'buffer');
    out.push(A);
    if (produced + u >= n) break;
    const B = Buffer.alloc(v);
    for (let i = 0; i < v; i++) B[i] = A[i % u]!;
    // I_j = (I_j + B + 1) mod 2^(8v), for every v-byte block of I.
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, n);
}

class DecryptFailed extends Error {}

export function decodePkcs12(pfx: Buffer, password: string, opts: DecodeOptions = {}): DecodedPkcs12 {
  const maxIterations = opts.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const wantCerts = opts.certificates ?? true;
  let budget = opts.iterationBudget ?? DEFAULT_ITERATION_BUDGET;
  const checkIterations = (n: number, what: string) => {
    if (n < 1 || n > maxIterations)
      throw new Pkcs12Error('unsupported', `${what} uses ${n} iterations; at most ${maxIterations} are accepted.`);
    budget -= n;
    if (budget < 0) throw new Pkcs12Error('unsupported', 'the file needs too much key derivation work in total');
    return n;
  };

  if (pfx.length === 0) throw unreadable('the file is empty');
  const root = children(parseAsn1(pfx, 'the file'), 'PFX');
  if (intOf(root[0], 'PFX version') !== 3) throw unreadable('PFX version is not 3');
  const authSafe = children(root[1], 'authSafe');
  if (oidOf(authSafe[0], 'authSafe type') !== OID.data)
    throw new Pkcs12Error('unsupported', 'only password-protected files are supported (this one uses public-key integrity)');
  const authSafeBytes = octetsOf(explicit0(authSafe[1], 'authSafe'), 'authSafe content');

  // Password integrity: the MAC tells a wrong password from a damaged file.
  let macVerified: boolean | null = null;
  const macData = root[2];
  if (opts.verifyMac ?? true) {
    if (!macData) macVerified = false;
    else {
      const [digestInfo, saltNode, iterNode] = children(macData, 'macData');
      const [algId, digestNode] = children(digestInfo, 'mac');
      const algOid = oidOf(children(algId, 'mac algorithm')[0], 'mac algorithm');
      const hash = DIGESTS[algOid];
      if (!hash) throw new Pkcs12Error('unsupported', `MAC algorithm ${algOid} is not supported`);
      const expected = octetsOf(digestNode, 'mac digest');
      const salt = octetsOf(saltNode, 'mac salt');
      const iterations = checkIterations(iterNode ? intOf(iterNode, 'mac iterations') : 1, 'the MAC');
      const candidates = password === '' ? [bmpPassword(''), Buffer.alloc(0)] : [bmpPassword(password)];
      const ok = candidates.some((pw) => {
        const key = pkcs12Kdf(hash, pw, salt, 3, iterations, hash.u);
        const mac = crypto.createHmac(hash.name, key).update(authSafeBytes).digest();
        return mac.length === expected.length && crypto.timingSafeEqual(mac, expected);
      });
      if (!ok) throw new Pkcs12Error('password', 'the password is wrong (MAC check failed)');
      macVerified = true;
    }
  }
  // Without a verified MAC, a decryption failure most likely means a wrong password.
  const failure = (what: string) =>
    macVerified === true
      ? unreadable(`${what} could not be decrypted (damaged file)`)
      : new Pkcs12Error('password', 'the password is wrong');

  const decrypt = (algId: Node | undefined, data: Buffer, what: string): Buffer => {
    const [algOidNode, params] = children(algId, `${what} algorithm`);
    const algOid = oidOf(algOidNode, `${what} algorithm`);
    let key: Buffer;
    let iv: Buffer;
    let cipher: string;
    let rc2Bits: number | undefined;
    if (algOid === OID.pbes2) {
      const [kdf, enc] = children(params, 'PBES2 parameters');
      const [kdfOid, kdfParams] = children(kdf, 'PBES2 key derivation');
      if (oidOf(kdfOid, 'key derivation') !== OID.pbkdf2) throw new Pkcs12Error('unsupported', 'only PBKDF2 key derivation is supported');
      const [saltNode, iterNode, ...rest] = children(kdfParams, 'PBKDF2 parameters');
      const salt = octetsOf(saltNode, 'PBKDF2 salt');
      const iterations = checkIterations(intOf(iterNode, 'PBKDF2 iterations'), what);
      let prf = 'sha1';
      let keyLength: number | undefined;
      for (const r of rest) {
        if (r.type === Type.INTEGER) keyLength = intOf(r, 'PBKDF2 key length');
        else {
          const prfOid = oidOf(children(r, 'PBKDF2 prf')[0], 'PBKDF2 prf');
          const name = HMAC_PRF[prfOid];
          if (!name) throw new Pkcs12Error('unsupported', `PBKDF2 PRF ${prfOid} is not supported`);
          prf = name;
        }
      }
      const [encOid, ivNode] = children(enc, 'PBES2 encryption scheme');
      const encName = oidOf(encOid, 'encryption scheme');
      const c = PBES2_CIPHERS[encName];
      if (!c) throw new Pkcs12Error('unsupported', `encryption ${encName} is not supported`);
      if (keyLength !== undefined && keyLength !== c.keyLength) throw unreadable('PBKDF2 key length does not match the cipher');
      iv = octetsOf(ivNode, 'IV');
      // PBES2 inside PKCS#12 takes the password as UTF-8 bytes (what OpenSSL and Windows write).
      key = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, c.keyLength, prf);
      cipher = c.name;
    } else if (PKCS12_PBES[algOid]) {
      const pbe = PKCS12_PBES[algOid];
      const [saltNode, iterNode] = children(params, 'PBE parameters');
      const salt = octetsOf(saltNode, 'PBE salt');
      const iterations = checkIterations(intOf(iterNode, 'PBE iterations'), what);
      const sha1 = DIGESTS['1.3.14.3.2.26']!;
      key = pkcs12Kdf(sha1, bmpPassword(password), salt, 1, iterations, pbe.keyLength);
      iv = pkcs12Kdf(sha1, bmpPassword(password), salt, 2, iterations, 8);
      cipher = pbe.cipher;
      rc2Bits = pbe.rc2Bits;
    } else {
      throw new Pkcs12Error('unsupported', `encryption algorithm ${algOid} is not supported`);
    }
    try {
      if (cipher === 'rc2') {
        const d = forge.rc2.createDecryptionCipher(forge.util.createBuffer(key.toString('binary')), rc2Bits!);
        d.start(forge.util.createBuffer(iv.toString('binary')));
        d.update(forge.util.createBuffer(data.toString('binary')));
        if (!d.finish()) throw new DecryptFailed();
        return Buffer.from(d.output.getBytes(), 'binary');
      }
      const d = crypto.createDecipheriv(cipher, key, iv);
      return Buffer.concat([d.update(data), d.final()]);
    } catch {
      throw failure(what);
    } finally {
      key.fill(0);
    }
  };

  const certificates: Buffer[] = [];
  const privateKeys: Buffer[] = [];
  const readBags = (safeContents: Buffer, nesting: number, encrypted: boolean) => {
    if (nesting > MAX_BAG_NESTING) throw unreadable('bags are nested too deeply');
    let bags: Node[];
    try {
      bags = children(parseAsn1(safeContents, 'safe contents'), 'safe contents');
    } catch (e) {
      // Garbage after decryption with an unchecked password is a wrong password, not a bad file.
      if (encrypted && macVerified !== true) throw new Pkcs12Error('password', 'the password is wrong');
      throw e;
    }
    for (const bag of bags) {
      const [idNode, valueWrapper] = children(bag, 'safe bag');
      const bagId = oidOf(idNode, 'bag type');
      const value = explicit0(valueWrapper, 'bag value');
      if (bagId === OID.keyBag) {
        privateKeys.push(Buffer.from(forge.asn1.toDer(value).getBytes(), 'binary'));
      } else if (bagId === OID.shroudedKeyBag) {
        const [algId, encNode] = children(value, 'encrypted private key');
        privateKeys.push(decrypt(algId, octetsOf(encNode, 'encrypted private key'), 'the private key'));
      } else if (bagId === OID.certBag) {
        const [certType, certValue] = children(value, 'certificate bag');
        if (oidOf(certType, 'certificate type') === OID.x509Certificate)
          certificates.push(octetsOf(explicit0(certValue, 'certificate'), 'certificate'));
      } else if (bagId === OID.safeContentsBag) {
        readBags(Buffer.from(forge.asn1.toDer(value).getBytes(), 'binary'), nesting + 1, encrypted);
      }
      // CRL and secret bags are of no use here and are skipped.
    }
  };

  for (const ci of children(parseAsn1(authSafeBytes, 'authenticated safe'), 'authenticated safe')) {
    const [typeNode, content] = children(ci, 'content info');
    const type = oidOf(typeNode, 'content type');
    if (type === OID.data) {
      readBags(octetsOf(explicit0(content, 'data'), 'data'), 0, false);
    } else if (type === OID.encryptedData) {
      // Encrypted data holds certificates in practice; skip its costly decryption when unwanted.
      if (!wantCerts) continue;
      const [, eci] = children(explicit0(content, 'encrypted data'), 'encrypted data');
      const [, algId, encContent] = children(eci, 'encrypted content info');
      readBags(decrypt(algId, octetsOf(encContent, 'encrypted content'), 'the certificates'), 0, true);
    } else {
      throw new Pkcs12Error('unsupported', `content type ${type} (public-key privacy mode) is not supported`);
    }
  }
  return { certificates: wantCerts ? certificates : [], privateKeys, macVerified };
}
