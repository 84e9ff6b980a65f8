import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPfxInspector } from '../modules/credentials/index.ts';
import { makeTestCertificate, TestCertificateUsageError } from './test-certificate.ts';

// What the service runs on an uploaded .pfx (in its isolated worker).
const inspectPfx = (pfx: Buffer, password: string) => createPfxInspector().inspect(pfx, password);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-cert-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('npx dte test-certificate', () => {
  it('writes a 0600 .pfx the service reads, with the RUT, name and expiry it prints', async () => {
    const now = new Date('2026-11-27T15:00:00Z');
    const r = makeTestCertificate(['--rut', '11.111.111-1', '--name', 'María Pérez', '--out', 'c.pfx', '--days', '30'], {}, dir, now);
    expect(r.file).toBe(path.join(dir, 'c.pfx'));
    expect(fs.statSync(r.file).mode & 0o777).toBe(0o600);
    expect(r).toMatchObject({
      rutCertificado: '11.111.111-1',
      nombreTitular: 'María Pérez',
      fechaVencimiento: '2026-12-27',
      passwordFromEnv: false,
    });
    expect(r.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const seen = await inspectPfx(fs.readFileSync(r.file), r.password);
    expect(seen.rut).toBe('11111111-1');
    expect(seen.holderName).toBe('María Pérez');
    expect(seen.notAfter.slice(0, 10)).toBe('2026-12-27');
    // OpenSSL, which we did not write, opens it with the same password and refuses another.
    const openssl = (pass: string) =>
      execFileSync('openssl', ['pkcs12', '-in', r.file, '-passin', 'env:P', '-nokeys', '-noout'], {
        env: { ...process.env, P: pass },
        stdio: 'pipe',
      });
    expect(() => openssl(r.password)).not.toThrow();
    expect(() => openssl('wrong')).toThrow();
  });

  it('takes the password from PFX_PASSWORD, never from the command line', async () => {
    const r = makeTestCertificate(['--out', 'c.pfx'], { PFX_PASSWORD: 'clave-de-prueba' }, dir);
    expect(r).toMatchObject({ password: 'clave-de-prueba', passwordFromEnv: true, rutCertificado: '11.111.111-1' });
    expect((await inspectPfx(fs.readFileSync(r.file), 'clave-de-prueba')).rut).toBe('11111111-1');
    expect(() => makeTestCertificate(['--password', 'x'], {}, dir)).toThrow(TestCertificateUsageError);
  });

  it('refuses to overwrite without --force, and bad arguments with a message', () => {
    makeTestCertificate(['--out', 'c.pfx'], {}, dir);
    const before = fs.readFileSync(path.join(dir, 'c.pfx'));
    expect(() => makeTestCertificate(['--out', 'c.pfx'], {}, dir)).toThrow(/already exists.*--force/);
    expect(fs.readFileSync(path.join(dir, 'c.pfx'))).toEqual(before);
    makeTestCertificate(['--out', 'c.pfx', '--force'], {}, dir);
    expect(fs.readFileSync(path.join(dir, 'c.pfx'))).not.toEqual(before);
    expect(() => makeTestCertificate(['--rut', '11111111-2', '--out', 'd.pfx'], {}, dir)).toThrow(/not a valid RUT/);
    expect(() => makeTestCertificate(['--days', '0', '--out', 'd.pfx'], {}, dir)).toThrow(/--days/);
    expect(fs.existsSync(path.join(dir, 'd.pfx'))).toBe(false);
  });
});
