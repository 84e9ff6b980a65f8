import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createSelfSignedCertificate, formatRutDotted, formatRutSii, tryParseRut } from '../dte/index.ts';

export const TEST_CERTIFICATE_USAGE = `  test-certificate [--rut RUT] [--name NAME] [--out FILE] [--days N] [--force] [--json]
                                                       write a self-signed test .pfx for the emulator (the SII refuses it)`;

/** Thrown for bad arguments: the CLI prints the message and exits 2. */
export class TestCertificateUsageError extends Error {}

export interface TestCertificateResult {
  file: string;
  rutCertificado: string;
  nombreTitular: string;
  /** The certificate's last valid day (UTC), what `fechaVencimiento` must be when it is uploaded. */
  fechaVencimiento: string;
  password: string;
  /** True when the password came from PFX_PASSWORD rather than being generated. */
  passwordFromEnv: boolean;
  /** --json: print the result as JSON. */
  json: boolean;
}

/**
 * `npx dte test-certificate`: a .pfx to try the credentials flow against the emulator without a
 * real certificate (issue 18: newcomers had no way to make one). Needs no server or database.
 *
 * The password comes from PFX_PASSWORD when set (never from argv: it would show in `ps`),
 * otherwise it is generated and printed once. The file is written 0600 and never overwritten
 * without --force.
 */
export function makeTestCertificate(argv: string[], env: NodeJS.ProcessEnv, cwd: string, now = new Date()): TestCertificateResult {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        rut: { type: 'string', default: '11111111-1' },
        name: { type: 'string', default: 'Titular de Prueba' },
        out: { type: 'string', default: 'certificado-prueba.pfx' },
        days: { type: 'string', default: '365' },
        force: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    throw new TestCertificateUsageError((e as Error).message);
  }
  const rut = tryParseRut(values.rut);
  if (!rut)
    throw new TestCertificateUsageError(
      `--rut "${values.rut}" is not a valid RUT: use 11.111.111-1 or 11111111-1 with a correct check digit`,
    );
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new TestCertificateUsageError('--days must be a whole number from 1 to 3650');
  const name = values.name.trim();
  if (!name || name.length > 64) throw new TestCertificateUsageError('--name must have 1 to 64 characters');
  const file = path.resolve(cwd, values.out);

  const passwordFromEnv = Boolean(env.PFX_PASSWORD);
  const password = env.PFX_PASSWORD || crypto.randomBytes(12).toString('base64url');
  // Valid from a day ago (clock skew), to the end of the last day in UTC.
  const notBefore = new Date(now.getTime() - 86_400_000);
  const last = new Date(now.getTime() + days * 86_400_000);
  const notAfter = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate(), 23, 59, 59));
  const cert = createSelfSignedCertificate({ rut: formatRutSii(rut), commonName: name, notBefore, notAfter });
  try {
    // 'wx' refuses an existing file atomically (no check-then-write race).
    fs.writeFileSync(file, cert.toPfx(password), { mode: 0o600, flag: values.force ? 'w' : 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new TestCertificateUsageError(`${file} already exists: choose another --out or add --force`);
    throw e;
  }
  fs.chmodSync(file, 0o600);
  return {
    file,
    rutCertificado: formatRutDotted(rut),
    nombreTitular: name,
    fechaVencimiento: notAfter.toISOString().slice(0, 10),
    password,
    passwordFromEnv,
    json: values.json,
  };
}

export function runTestCertificateCommand(argv: string[]): number {
  try {
    const r = makeTestCertificate(argv, process.env, process.cwd());
    if (r.json) {
      const { json: _json, ...out } = r;
      console.log(JSON.stringify(out));
      return 0;
    }
    const shown = path.relative(process.cwd(), r.file) || r.file;
    console.log(`Test certificate written to ${shown} (self-signed: the emulator accepts it, the SII does not).`);
    console.log(`  rutCertificado:   ${r.rutCertificado}`);
    console.log(`  nombreTitular:    ${r.nombreTitular}`);
    console.log(`  fechaVencimiento: ${r.fechaVencimiento}`);
    console.log(r.passwordFromEnv ? '  password:         the value of PFX_PASSWORD' : `  password:         ${r.password}`);
    console.log(
      `\nUpload it (docs/guides/03-credentials.md):\n` +
        `  curl -X POST "$BASE_URL/api/v1/tenants/$TENANT_ID/credentials/certificate" -H "Authorization: Bearer $API_KEY" \\\n` +
        `    -F file=@${shown} -F "password=…" -F rutCertificado=${r.rutCertificado} \\\n` +
        `    -F "nombreTitular=${r.nombreTitular}" -F fechaVencimiento=${r.fechaVencimiento} -F esPrincipal=true`,
    );
    return 0;
  } catch (e) {
    if (e instanceof TestCertificateUsageError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
}
