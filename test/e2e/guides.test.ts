import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccountViaCli, ROOT, startServer, type ServerProc } from '../support/processes.ts';
import { extractShellBlocks, GUIDES, guidesTypeScript } from '../support/guides.ts';
import { makeTestCertificate } from '../../src/cli/test-certificate.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { createTestCaf, createTestSii } from '../support/dte/test-caf.ts';
import { siiDate } from '../../src/dte/index.ts';

/**
 * The examples of docs/guides/*.md are run, in file order, against a live server (embedded
 * default), so the guides cannot drift from the API. Every ```sh block runs, as one bash script:
 * blocks share shell variables (TENANT_ID, DTE_ID, …) the way a reader's terminal would. Every ```ts
 * block runs too, as one module through the SDK (imported by its package name) under a second
 * account: blocks share `dte`, `tenant`, … (test/tooling/sdk-samples.test.ts type-checks them).
 */
let server: ServerProc;
let apiKey: string;
let work: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'guides-'));
  // The folios guide uploads `caf.xml`, which stands for a CAF downloaded from the SII: here one a
  // test SII signs (IDK 777), for the guides' tenant RUT, trusted by the server through SII_CAF_KEYS.
  const sii = createTestSii(777);
  fs.writeFileSync(path.join(work, 'sii-777.pem'), sii.publicKeyPem);
  const fechaAutorizacion = siiDate(new Date());
  fs.writeFileSync(
    path.join(work, 'caf.xml'),
    createTestCaf({ sii, rutEmisor: '76.192.083-9', tipoDte: 52, desde: 1, hasta: 100, fechaAutorizacion }).xml,
  );
  // The certification guide uploads `set-de-pruebas.txt`, which stands for the test set the SII hands
  // the company: here the project's copy of a real one.
  fs.copyFileSync(path.join(ROOT, 'test/fixtures/certification/SIISetDePruebas-01.txt'), path.join(work, 'set-de-pruebas.txt'));
  server = await startServer({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    EMULATOR_DELAY: '200',
    SII_CAF_KEYS: `777:${path.join(work, 'sii-777.pem')}`,
  });
  apiKey = await createAccountViaCli(server.env);
  receiver = await startWebhookReceiver();
  // The credentials guide makes its own certificado.pfx with `npx dte test-certificate`.
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

it('runs every curl example in docs/guides against a live server', async () => {
  const files = fs
    .readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md'))
    .sort();
  expect(files.length).toBeGreaterThanOrEqual(8);
  // A reader's terminal is in the project directory, where `npx dte` runs bin/dte.js; this script
  // runs in a scratch directory, so `npx dte` is pointed at the project's own command.
  let script = `set -euo pipefail\nnpx() { if [ "$1" = dte ]; then shift; "$NODE" "$DTE_BIN" "$@"; else command npx "$@"; fi; }\n`;
  for (const f of files) {
    extractShellBlocks(fs.readFileSync(path.join(GUIDES, f), 'utf8')).forEach((block, i) => {
      script += `echo "::: ${f} block ${i + 1}" >&2\n${block}\n`;
    });
  }
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      {
        cwd: work,
        env: {
          ...process.env,
          BASE_URL: server.url,
          API_KEY: apiKey,
          PFX_PASSWORD: 'clave-de-prueba',
          WEBHOOK_URL: receiver.url,
          NODE: process.execPath,
          DTE_BIN: path.join(ROOT, 'bin/dte.js'),
        },
        timeout: 240_000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
  expect(result.code, result.out.slice(-4000)).toBe(0);
  // The outcomes the guides promise, not just exit codes.
  expect(result.out).toContain('"active"');
  expect(fs.statSync(path.join(work, 'certificado.pfx')).mode & 0o777).toBe(0o600); // made by npx dte test-certificate
  expect(result.out).toContain('final status: accepted');
  expect(result.out).toContain('{"provider":"sii","ready":true,"apiKey":false,"missing":[]}'); // a direct tenant
  expect(result.out).toContain('{"tipoDte":33,"status":"completed","rango":{"desde":1,"hasta":10'); // folios through the SII's forms
  expect(result.out).toContain('direct final status: accepted');
  expect(result.out).toMatch(/"code":"amount_mismatch"/);
  expect(result.out).toContain('%PDF-'); // the printed document
  expect(result.out).toContain('{"tipoDte":52,"desde":1,"hasta":100,'); // the uploaded CAF
  expect(result.out).toContain('{"code":"caf_unreadable","param":"file"}');
  // The certification guide: the set's 19 documents made, sent and accepted, its three books built.
  expect(result.out).toContain('{"progress":{"cases":19,"documents":19}');
  expect(result.out).toMatch(/^\s*19 accepted$/m);
  for (const libro of ['ventas', 'compras', 'guias']) {
    expect(result.out).toContain(`{"libro":"${libro}","ready":true`);
    expect(fs.readFileSync(path.join(work, `libro-${libro}.xml`), 'latin1')).toMatch(/<EnvioLibro ID=/);
  }
  // The webhooks guide registers WEBHOOK_URL only after every document of the DTE guide is final and
  // deletes it at the end, so nothing is due to it: anything received would be a stray event.
  expect(receiver.deliveries.map((d) => d.payload?.event)).toEqual([]);
}, 300_000);

it('runs every TypeScript (SDK) example in docs/guides against the same live server', async () => {
  const source = guidesTypeScript();
  expect(source).toContain("from '@dte-service/sdk'");
  // Inside the repository, so `@dte-service/sdk` resolves through the workspace link.
  const file = path.join(ROOT, '.tmp', `guides-sdk-${process.pid}.ts`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, source);
  const sdkKey = await createAccountViaCli(server.env);
  // The TypeScript blocks upload the same file the shell guide makes (made here too, so this test
  // does not depend on the other having run).
  const cert = makeTestCertificate(
    ['--rut', '11.111.111-1', '--name', 'María Pérez', '--out', 'certificado.pfx', '--force'],
    { PFX_PASSWORD: 'clave-de-prueba' },
    work,
  );
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      process.execPath,
      [file],
      {
        cwd: work,
        env: { ...process.env, BASE_URL: server.url, API_KEY: sdkKey, PFX_PASSWORD: 'clave-de-prueba', CERT_EXPIRY: cert.fechaVencimiento },
        timeout: 240_000,
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
  fs.rmSync(file, { force: true });
  expect(result.code, result.out.slice(-4000)).toBe(0);
  expect(result.out).toContain('400 invalid_rut rutEmpresa');
  expect(result.out).toContain('sdk final status: accepted');
  expect(result.out).toContain('direct final status: accepted');
  expect(result.out).toMatch(/^52 1 100 null$/m); // the uploaded CAF
  expect(result.out).toMatch(/422 amount_mismatch montoTotal/);
  expect(result.out).toContain('verified webhook: dte.status.changed');
  expect(fs.readFileSync(path.join(work, 'factura-sdk.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
}, 300_000);
