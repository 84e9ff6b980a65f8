import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { FastifyServerFactory } from 'fastify';
import forge from 'node-forge';

/**
 * The emulator over HTTPS (docs/emulator.md, "HTTPS"): the SII's web login asks for the caller's
 * certificate in the TLS handshake (mTLS, docs/sources.md §1.6), which only a TLS server can do. The
 * emulator's own server certificate is self-signed for 127.0.0.1 and localhost; a client trusts it
 * by its PEM (the SII adapter's extra CA). The server asks every client for a certificate but
 * accepts any, or none: the SII's login judges it, not the handshake (`requestCert`,
 * `rejectUnauthorized: false`).
 */
export interface ServerCertificate {
  keyPem: string;
  certPem: string;
  /** Where the certificate's PEM was written, when it was. */
  certPath?: string | undefined;
}

export const TLS_CERT_FILE = 'tls-cert.pem';
export const TLS_KEY_FILE = 'tls-key.pem';

/** A new self-signed server certificate for `hosts` (IP addresses and DNS names), valid for a year. */
export function createServerCertificate(hosts: readonly string[] = ['127.0.0.1', 'localhost'], now = new Date()): ServerCertificate {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fkey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = `0${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  // A day back: clocks of client and server need not agree to the second.
  cert.validity.notBefore = new Date(now.getTime() - 86_400_000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 86_400_000);
  const attrs = [
    { shortName: 'CN', value: hosts[0] ?? 'localhost' },
    { shortName: 'O', value: 'Emulador SII (no es el SII)' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
  ]);
  cert.sign(fkey, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

/** The server certificate kept in `dir` (created on first use), so clients trust it across restarts. */
export function loadOrCreateServerCertificate(dir: string): ServerCertificate {
  const certPath = path.join(dir, TLS_CERT_FILE);
  const keyPath = path.join(dir, TLS_KEY_FILE);
  if (fs.existsSync(certPath) && fs.existsSync(keyPath)) {
    return { keyPem: fs.readFileSync(keyPath, 'utf8'), certPem: fs.readFileSync(certPath, 'utf8'), certPath };
  }
  fs.mkdirSync(dir, { recursive: true });
  const c = createServerCertificate();
  fs.writeFileSync(keyPath, c.keyPem, { mode: 0o600 });
  fs.writeFileSync(certPath, c.certPem);
  return { ...c, certPath };
}

/** Fastify's server factory for an HTTPS server that asks for (and does not require) a client certificate. */
export function httpsServerFactory(c: ServerCertificate): FastifyServerFactory {
  const factory = (handler: Parameters<FastifyServerFactory>[0]) =>
    https.createServer({ key: c.keyPem, cert: c.certPem, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, handler);
  return factory as unknown as FastifyServerFactory;
}
