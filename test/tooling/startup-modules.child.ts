/**
 * Run by lazy-modules.test.ts in a process of its own (a test worker may already hold any module):
 * records every module this process resolves, imports the process wiring (src/main.ts, without
 * running it) and builds the HTTP app up to `ready`, then uses the two features that load their
 * large modules on first use — the API reference, a printed document — and a logo upload (whose decoders only
 * its decoder process loads), and prints, as one JSON
 * line, the modules resolved at rest and those resolved after.
 */
import { registerHooks } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../src/db/types.ts';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    const r = nextResolve(specifier, context);
    resolved.push(r.url);
    return r;
  },
});

await import('../../src/main.ts');
const { loadConfig } = await import('../../src/config.ts');
const { createContext } = await import('../../src/context.ts');
const { buildApp } = await import('../../src/http/app.ts');
const { systemClock } = await import('../../src/lib/clock.ts');
const { generateKeySpec, parseKeyring } = await import('../../src/secrets/envelope.ts');

// No database: building the app must not query one (a query here fails the test, loudly).
const noDb = (): Db => {
  const refuse = () => Promise.reject(new Error('startup-modules.child.ts: no database here'));
  return { kind: 'pglite', query: refuse, transaction: refuse, close: () => Promise.resolve() } as unknown as Db;
};
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: path.join(os.tmpdir(), 'dte-startup-modules-unused') });
const ctx = createContext({
  config,
  db: noDb(),
  secretsDb: noDb(),
  clock: systemClock,
  keyrings: {
    data: { keyring: parseKeyring(generateKeySpec('t1')), file: undefined },
    secrets: { keyring: parseKeyring(generateKeySpec('s1')), file: undefined },
  },
});
const app = await buildApp(ctx, { logger: false });
await app.ready();
const atRest = [...resolved];

// The features still work, and load what they need.
const page = await app.inject({ method: 'GET', url: '/docs/' });
const bundle = await app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
const { createTestKit, sampleDteInput } = await import('../support/dte/fixtures.ts');
const { readPrintable } = await import('../../src/dte/index.ts');
const { createLogoPreparer, LogoError, renderDtePdf } = await import('../../src/pdf/index.ts');
const { zeroPng } = await import('../support/zero-png.ts');
const pdf = await renderDtePdf(readPrintable(createTestKit().build(sampleDteInput(39, 1)).xml), {
  formato: '80mm',
  cedible: false,
  unidadSii: 'Santiago Centro',
  resolucion: { numero: 80, fecha: '2014-08-22' },
});
// A logo is decoded in a child process: an empty upload is refused before any (with the LogoError
// the tenants module catches), a real one is decoded there, and neither loads the decoders here.
const logos = createLogoPreparer();
const logoEmpty = await logos.prepare(Buffer.alloc(0)).then(
  () => 'accepted',
  (e: unknown) => (e instanceof LogoError ? e.problem.reason : String(e)),
);
const logoReal = await logos.prepare(await zeroPng({ width: 64, height: 32 }), 'image/png');
const logo = { empty: logoEmpty, accepted: [logoReal.width, logoReal.height, logoReal.png.subarray(1, 4).toString('latin1')] };
await app.close();

console.log(
  JSON.stringify({
    atRest,
    afterUse: resolved,
    docs: { page: page.statusCode, bundleBytes: bundle.rawPayload.length },
    pdf: pdf.subarray(0, 5).toString('latin1'),
    logo,
  }),
);
