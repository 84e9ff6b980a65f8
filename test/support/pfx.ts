import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';
import { createTestCertificate, type TestCertificate, type TestCertificateOptions } from './dte/test-certificate.ts';

/**
 * .pfx files for credential tests, made at test time. Certificates come from the DTE engine's
 * test helper (RUT in subjectAltName 1.3.6.1.4.1.8321.1); the PKCS#12 wrapping comes from
 * OpenSSL for the modern (AES-256-CBC, PBKDF2-SHA256, HMAC-SHA256) and legacy (RC2-40 + 3DES,
 * SHA-1) encodings that real exports use, and from node-forge for files OpenSSL refuses to make
 * (a key that does not match its certificate).
 */
let sharedKey: crypto.KeyObject | undefined;
/** One RSA key for most test certificates: generating keys is the slow part. */
export const testKey = () => (sharedKey ??= crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

export const makeCert = (opts: TestCertificateOptions = {}): TestCertificate =>
  createTestCertificate({ privateKey: testKey(), notBefore: new Date(Date.UTC(2024, 0, 1)), ...opts });

const openssl = (args: string[], files: Record<string, string>, password: string): Buffer => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pfx-'));
  try {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content, { mode: 0o600 });
    execFileSync('openssl', [...args, '-out', 'out.pfx', '-passout', 'env:PFX_PASSWORD'], {
      cwd: dir,
      env: { ...process.env, PFX_PASSWORD: password },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return fs.readFileSync(path.join(dir, 'out.pfx'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

/** AES-256-CBC with PBKDF2-HMAC-SHA256 for key and certificates, HMAC-SHA256 MAC (OpenSSL 3 default). */
export const modernPfx = (cert: TestCertificate, password: string, extra: string[] = []) =>
  openssl(
    [
      'pkcs12',
      '-export',
      '-inkey',
      'key.pem',
      '-in',
      'cert.pem',
      '-keypbe',
      'AES-256-CBC',
      '-certpbe',
      'AES-256-CBC',
      '-macalg',
      'sha256',
      ...extra,
    ],
    { 'key.pem': cert.privateKeyPem, 'cert.pem': cert.certificatePem },
    password,
  );

/** The legacy encoding of older Windows exports: certificates RC2-40, key 3DES, SHA-1 MAC. */
export const legacyPfx = (cert: TestCertificate, password: string) =>
  openssl(
    [
      'pkcs12',
      '-export',
      '-legacy',
      '-inkey',
      'key.pem',
      '-in',
      'cert.pem',
      '-keypbe',
      'PBE-SHA1-3DES',
      '-certpbe',
      'PBE-SHA1-RC2-40',
      '-macalg',
      'sha1',
    ],
    { 'key.pem': cert.privateKeyPem, 'cert.pem': cert.certificatePem },
    password,
  );

/** A certificate without its private key. */
export const noKeyPfx = (cert: TestCertificate, password: string) =>
  openssl(['pkcs12', '-export', '-nokeys', '-in', 'cert.pem'], { 'cert.pem': cert.certificatePem }, password);

/** A private key packed with a certificate it does not belong to. */
export function mismatchedPfx(cert: TestCertificate, password: string): Buffer {
  const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const key = forge.pki.privateKeyFromPem(other.export({ type: 'pkcs8', format: 'pem' }).toString());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [forge.pki.certificateFromPem(cert.certificatePem)], password, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}

/** DER nested `depth` SEQUENCEs deep, definite lengths. */
export function nestedDer(depth: number): Buffer {
  let inner = Buffer.alloc(0);
  for (let i = 0; i < depth; i++) {
    const n = inner.length;
    const len =
      n < 0x80
        ? Buffer.from([n])
        : n < 0x100
          ? Buffer.from([0x81, n])
          : n < 0x10000
            ? Buffer.from([0x82, n >> 8, n & 0xff])
            : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
    inner = Buffer.concat([Buffer.from([0x30]), len, inner]);
  }
  return inner;
}

/** BER indefinite-length SEQUENCEs nested `depth` deep (2 bytes per level). */
export const nestedIndefiniteBer = (depth: number) => Buffer.alloc(depth * 2, Buffer.from([0x30, 0x80]));

/** A valid .pfx whose MAC claims an absurd iteration count (a CPU-exhaustion attempt). */
export function hugeIterationPfx(pfx: Buffer): Buffer {
  const asn = forge.asn1.fromDer(forge.util.createBuffer(pfx.toString('binary')));
  const macData = (asn.value as forge.asn1.Asn1[])[2]!;
  (macData.value as forge.asn1.Asn1[])[2] = forge.asn1.create(
    forge.asn1.Class.UNIVERSAL,
    forge.asn1.Type.INTEGER,
    false,
    forge.asn1.integerToDer(2_000_000_000).getBytes(),
  );
  return Buffer.from(forge.asn1.toDer(asn).getBytes(), 'binary');
}

/** Builds the multipart body of the certificate upload (field names exactly as the contract). */
export function certificateForm(fields: Record<string, string | undefined>, file?: { data: Buffer; filename?: string }) {
  const boundary = `----test${crypto.randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename ?? 'cert.pfx'}"\r\nContent-Type: application/x-pkcs12\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The YYYY-MM-DD of a Date in UTC. */
export const ymd = (d: Date) => d.toISOString().slice(0, 10);
