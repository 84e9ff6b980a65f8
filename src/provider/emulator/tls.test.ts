import fs from 'node:fs';
import https from 'node:https';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCaf, verifyCaf } from '../../dte/index.ts';
import { manualClock } from '../../lib/clock.ts';
import { openTestDb } from '../../../test/support/db.ts';
import { makeCert, modernPfx } from '../../../test/support/pfx.ts';
import { requestCafViaForms } from '../sii/caf-forms.ts';
import { siiHosts } from '../sii/context.ts';
import { createInProcessEmulator } from './inprocess.ts';
import { ephemeralSiiKey } from './sii-key.ts';
import { startStandaloneEmulator } from './standalone.ts';

/** The emulator over HTTPS: the standalone server on one https origin, and the in-process emulator's CAF forms listener. */
const PASSWORD = 'clave-del-pfx';
const cert = makeCert({ rut: '12345678-5', commonName: 'Firmante de Prueba' });
const creds = { pfx: modernPfx(cert, PASSWORD), pfxPassword: PASSWORD, rutCertificado: cert.rut };
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

const get = (url: string, ca: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    https
      .get(url, { ca, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });

describe('the emulator over HTTPS', () => {
  it('standalone with tls: the SimpleAPI face and the CAF forms on one https origin, its certificate written out', async () => {
    const emu = await startStandaloneEmulator({ port: 0, processingDelayMs: 0, rateLimits: null, tls: true });
    closers.push(() => emu.close());
    expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = fs.readFileSync(emu.tlsCertPath!, 'utf8');
    expect((await get(`${emu.url}/emulator/health`, ca)).body).toContain('"ok":true');
    const sub = await get(`${emu.url}/api/v1/suscripcion/status`, ca, { authorization: 'sandbox-key-ok' });
    expect(sub.status).toBe(200);
    const { cafXml } = await requestCafViaForms({ hosts: siiHosts(emu.url), timeoutMs: 10_000, ca }, creds, {
      rutEmpresa: '76192083-9',
      tipoDte: 33,
      cantidad: 3,
      ambiente: 'certificacion',
    });
    const caf = parseCaf(cafXml);
    expect(caf).toMatchObject({ desde: 1, hasta: 3 });
    expect(verifyCaf(caf, emu.core.siiKeys).valid).toBe(true);
  });

  it('in-process: a lazily started listener for the CAF forms, closed with the emulator', async () => {
    const tdb = await openTestDb('pglite');
    closers.push(() => tdb.close());
    const emu = createInProcessEmulator({
      db: tdb.db,
      clock: manualClock('2026-03-02T12:00:00Z'),
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
    });
    const forms = await emu.cafForms();
    expect(await emu.cafForms()).toEqual(forms);
    const { cafXml } = await requestCafViaForms({ hosts: siiHosts(forms.origin), timeoutMs: 10_000, ca: forms.ca }, creds, {
      rutEmpresa: '76192083-9',
      tipoDte: 39,
      cantidad: 2,
      ambiente: 'certificacion',
    });
    expect(parseCaf(cafXml)).toMatchObject({ tipoDte: 39, desde: 1, hasta: 2 });
    await emu.close();
    await expect(get(`${forms.origin}/cvc_cgi/dte/of_solicita_folios`, forms.ca)).rejects.toThrow();
  });
});
