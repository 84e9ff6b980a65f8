import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siiDate, type TipoDte } from '../../src/dte/index.ts';
import type { EmulatorStats } from '../../src/provider/emulator/stats.ts';
import { validTenant } from '../support/app.ts';
import { readyTenantOverHttp } from '../support/bulk.ts';
import { runCheckSiiXml } from '../support/dte/check-sii-xml.ts';
import { expectOneElementPerLine, SII_MAX_LINE } from '../support/dte/lines.ts';
import { createTestCaf, createTestSii } from '../support/dte/test-caf.ts';
import { CERT_PASSWORD, CERT_RUT, dteBody, randomRut, SANDBOX_API_KEY, testCertificate } from '../support/issuing.ts';
import { ymd } from '../support/pfx.ts';
import { apiClient, createAccountViaCli, launch, scratchDatabase, startServer, type Proc, type ServerProc } from '../support/processes.ts';
import { copyEmulatorDatabase, copyServerData } from '../support/server-data.ts';

/**
 * Issue 26's must-show, across processes: the service (`node src/main.ts`) and the standalone
 * emulator (`dte emulator --tls`: SimpleAPI and every SII path on one https origin), over real
 * sockets, on PostgreSQL (TEST_DATABASE_URL) and on PGlite (DATA_DIR in a temp dir). The service
 * runs PROVIDER=simpleapi pointed at the emulator, so SimpleAPI tenants keep their path, and
 * SII_BASE_URL at the same origin for direct tenants (trusting its certificate through
 * NODE_EXTRA_CA_CERTS). A direct tenant uploads a CAF and requests others through the SII's forms,
 * sends 30 facturas, a 60-line factura, 10 boletas and a credit note, all accepted; a rejection
 * carries the SII's code; the emulator's stats count one token of each kind for the whole run;
 * every uploaded envelope has no line over 4,090 characters and passes check-sii-xml. The same
 * flow's core through a SimpleAPI tenant still passes.
 */
type Api = ReturnType<typeof apiClient>;
type Backend = 'PostgreSQL' | 'PGlite';

const NO_PG = !process.env.TEST_DATABASE_URL;
const FINAL = ['accepted', 'accepted_with_objections', 'rejected', 'send_failed'];

interface TlsEmulator extends Proc {
  url: string;
  siiPublicKey: string;
  tlsCertificate: string;
  /** The emulator's own certificate, for this process's own https calls (stats, the CAF download). */
  ca: string;
}

/** `dte emulator --port 0 --tls --json`, as an operator starts it; resolves once it prints where it listens. */
async function startTlsEmulator(dataDir: string, delay: string): Promise<TlsEmulator> {
  const p = launch(['bin/dte.js', 'emulator', '--port', '0', '--data-dir', dataDir, '--delay', delay, '--tls', '--json'], {});
  const deadline = Date.now() + 60_000;
  for (;;) {
    const line = p
      .log()
      .split('\n')
      .find((l) => l.startsWith('{'));
    if (line) {
      const info = JSON.parse(line) as { url: string; siiPublicKey: string; tlsCertificate: string };
      return { ...p, ...info, ca: fs.readFileSync(info.tlsCertificate, 'utf8') };
    }
    if (p.proc.exitCode !== null || Date.now() > deadline) throw new Error(`emulator did not start:\n${p.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One https request trusting the emulator's certificate (Node's fetch takes no CA). */
function httpsCall(
  ca: string,
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: opts.method ?? 'GET', headers: opts.headers, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const emulatorStats = async (emu: TlsEmulator): Promise<EmulatorStats> =>
  JSON.parse((await httpsCall(emu.ca, `${emu.url}/emulator/stats`)).body.toString('utf8')) as EmulatorStats;

/**
 * A CAF as the company would download it from the SII: granted by the emulator's SII (its records,
 * signed with its IDK 666 key) and fetched here through its SimpleAPI face (`folios/get`), so the
 * documents stamped with it are judged like any other.
 */
async function downloadCaf(emu: TlsEmulator, rutEmpresa: string, tipoDte: number, cantidad: number): Promise<Buffer> {
  const form = new FormData();
  const { pfx } = testCertificate();
  form.append('input', JSON.stringify({ RutCertificado: CERT_RUT, Password: CERT_PASSWORD, RutEmpresa: rutEmpresa, Ambiente: 0 }));
  form.append('files', new Blob([new Uint8Array(pfx)], { type: 'application/x-pkcs12' }), 'firma.pfx');
  const encoded = new Response(form);
  const r = await httpsCall(emu.ca, `${emu.url}/api/folios/get/${tipoDte}/${cantidad}`, {
    method: 'POST',
    headers: { authorization: 'caf-download-key-0001', 'content-type': encoded.headers.get('content-type')! },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  if (r.status !== 200) throw new Error(`folios/get: ${r.status} ${r.body.toString()}`);
  return r.body;
}

async function uploadCaf(api: Api, tenantId: string, xml: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(xml)], { type: 'application/xml' }), 'caf.xml');
  return api('POST', `/api/v1/tenants/${tenantId}/folios/caf`, form);
}

/** A direct tenant through the public API: created with provider "sii", its certificate only. */
async function directTenant(api: Api): Promise<{ tenantId: string; rut: string }> {
  const rut = randomRut();
  const t = await api('POST', '/api/v1/tenants', validTenant({ acteco: [620200], rutEmpresa: rut, provider: 'sii' }));
  expect(t.status, t.body.toString()).toBe(201);
  const tenantId = t.json.id as string;
  const { cert, pfx } = testCertificate();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pfx)], { type: 'application/x-pkcs12' }), 'firma.pfx');
  form.append('password', CERT_PASSWORD);
  form.append('rutCertificado', '12.345.678-5');
  form.append('nombreTitular', 'Firmante de Prueba');
  form.append('fechaVencimiento', ymd(cert.notAfter));
  form.append('esPrincipal', 'true');
  const c = await api('POST', `/api/v1/tenants/${tenantId}/credentials/certificate`, form);
  expect(c.status, c.body.toString()).toBe(201);
  return { tenantId, rut: (t.json.rutEmpresa as string | undefined) ?? rut };
}

/** The 60-line factura: every line with a long description (DscItem, up to 1,000 characters). */
function sixtyLines() {
  const words = 'Implementación de módulo de facturación con integración al SII, pruebas y documentación técnica ñandú; ';
  return Array.from({ length: 60 }, (_, i) => ({
    nombre: `Ítem ${i + 1}: servicio profesional de desarrollo y soporte`,
    descripcion: `Línea ${i + 1}. ${words.repeat(9)}`.slice(0, 950),
    cantidad: i + 1,
    precioUnitario: 1000 + i * 37,
    ...(i % 10 === 9 ? { exento: true } : {}),
  }));
}

for (const backend of ['PostgreSQL', 'PGlite'] as Backend[]) {
  const skip = backend === 'PostgreSQL' && NO_PG;
  const title = skip
    ? 'a direct tenant across processes on PostgreSQL — SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it'
    : `a direct tenant across processes: service on ${backend} + standalone emulator over HTTPS`;

  describe.skipIf(skip)(title, () => {
    let work: string;
    let emu: TlsEmulator;
    let server: ServerProc;
    let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
    let api: Api;
    // A CAF key of a stand-in SII (IDK 777), trusted through SII_CAF_KEYS, for the second kind of upload.
    const sii777 = createTestSii(777);

    beforeAll(async () => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'direct-sii-e2e-'));
      fs.writeFileSync(path.join(work, 'sii-777.pem'), sii777.publicKeyPem);
      fs.mkdirSync(path.join(work, 'emulator'));
      await copyEmulatorDatabase(path.join(work, 'emulator'));
      db = backend === 'PostgreSQL' ? await scratchDatabase() : undefined;
      emu = await startTlsEmulator(path.join(work, 'emulator'), '150');
      // PGlite: a copy of a first start's data and keys (test/support/server-data.ts) in `work`.
      if (backend === 'PGlite') await copyServerData(path.join(work, 'data'), path.join(work, 'keys'));
      server = await startServer({
        ...(db?.env ?? {}),
        ...(backend === 'PGlite' ? { DATA_DIR: path.join(work, 'data'), KEYS_DIR: path.join(work, 'keys') } : {}),
        PROVIDER: 'simpleapi',
        SIMPLEAPI_BASE_URL: emu.url,
        SIMPLEAPI_SERVICIOS_URL: emu.url,
        SIMPLEAPI_RETRIES: '2',
        SII_BASE_URL: emu.url,
        NODE_EXTRA_CA_CERTS: emu.tlsCertificate,
        EMULATOR_SII_PUBLIC_KEY: emu.siiPublicKey,
        SII_CAF_KEYS: `777:${path.join(work, 'sii-777.pem')}`,
        FOLIO_REQUEST_WAIT: '60s',
        DTE_SEND_WAIT: '20s',
        DTE_POLL_INITIAL: '300ms',
      });
      api = apiClient(server.url, await createAccountViaCli(server.env));
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      await emu?.stop();
      await db?.drop();
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    const envelopes: { name: string; bytes: Buffer }[] = [];
    const documents: { name: string; bytes: Buffer }[] = [];

    async function create(tenantId: string, tipo: TipoDte, over: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const r = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(tipo, over));
      expect(r.status, r.body.toString()).toBe(201);
      return r.json;
    }

    /** POST …/dte/send, keeping every envelope it made for the checks at the end. */
    async function send(tenantId: string, ids: string[]): Promise<{ id: string; tipoEnvio: string }[]> {
      const r = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: ids });
      expect(r.status, r.body.toString()).toBe(202);
      const envios = r.json.envios as { id: string; tipoEnvio: string }[];
      for (const e of envios) {
        const x = await api('GET', `/api/v1/tenants/${tenantId}/dte/envios/${e.id}/xml`);
        expect(x.status, x.body.toString()).toBe(200);
        envelopes.push({ name: `${tenantId.slice(-6)}-${envelopes.length + 1}-${e.tipoEnvio}.xml`, bytes: x.body });
      }
      return envios;
    }

    async function waitFinal(ids: string[], timeoutMs = 60_000): Promise<Map<string, Record<string, unknown>>> {
      const done = new Map<string, Record<string, unknown>>();
      const deadline = Date.now() + timeoutMs;
      while (done.size < ids.length) {
        for (const id of ids) {
          if (done.has(id)) continue;
          const s = (await api('GET', `/api/v1/dte/${id}/status`)).json;
          if (FINAL.includes(s.status as string)) done.set(id, s);
        }
        if (done.size === ids.length) break;
        if (Date.now() > deadline) throw new Error(`${ids.length - done.size} of ${ids.length} documents not final after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return done;
    }

    it('a direct tenant: CAFs uploaded and requested; 30 facturas, a 60-line factura, 10 boletas and a credit note accepted; a rejection with the SII’s code; one token of each kind', async () => {
      const { tenantId, rut } = await directTenant(api);
      const status = await api('GET', `/api/v1/tenants/${tenantId}/credentials/status`);
      expect(status.json).toMatchObject({ provider: 'sii', ready: true });

      // Uploaded: a CAF downloaded from the (emulated) SII, and one signed by a key of SII_CAF_KEYS.
      const up = await uploadCaf(api, tenantId, await downloadCaf(emu, rut, 33, 20));
      expect(up.status, up.body.toString()).toBe(201);
      expect(up.json).toMatchObject({ tipoDte: 33, desde: 1, hasta: 20 });
      const caf777 = createTestCaf({
        sii: sii777,
        rutEmisor: rut,
        tipoDte: 52,
        desde: 1,
        hasta: 50,
        fechaAutorizacion: siiDate(new Date()),
      });
      const up777 = await uploadCaf(api, tenantId, caf777.xml);
      expect(up777.status, up777.body.toString()).toBe(201);
      expect(up777.json).toMatchObject({ tipoDte: 52, desde: 1, hasta: 50 });

      // Requested through the SII's forms (certificate login over mTLS): ranges follow the uploaded one.
      const siiBefore = (await emulatorStats(emu)).sii;
      for (const [tipoDte, cantidad, desde] of [
        [33, 20, 21],
        [39, 15, 1],
        [61, 5, 1],
      ] as const) {
        const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte, cantidad });
        expect(f.status, f.body.toString()).toBe(201);
        expect(f.json).toMatchObject({ status: 'completed', rango: { desde, hasta: desde + cantidad - 1 } });
      }
      const siiForms = (await emulatorStats(emu)).sii;
      expect(siiForms.routes['CAutInicio']?.total ?? 0).toBeGreaterThan(siiBefore.routes['CAutInicio']?.total ?? 0);

      // 30 facturas, one of 60 lines with long descriptions, 10 boletas: one send, two envelopes.
      const facturas: Record<string, unknown>[] = [];
      for (let i = 0; i < 30; i++) facturas.push(await create(tenantId, 33));
      const long = await create(tenantId, 33, { detalle: sixtyLines() });
      const boletas: string[] = [];
      for (let i = 0; i < 10; i++) boletas.push((await create(tenantId, 39)).id as string);
      const ids = [...facturas.map((f) => f.id as string), long.id as string, ...boletas];
      const envios = await send(tenantId, ids);
      expect(envios.map((e) => e.tipoEnvio).sort()).toEqual(['EnvioBOLETA', 'EnvioDTE']);
      const finals = await waitFinal(ids);
      for (const id of ids) expect(finals.get(id), id).toMatchObject({ id, status: 'accepted' });
      for (const f of facturas) expect(finals.get(f.id as string)).toMatchObject({ sii: { estado: 'DOK' } });
      // The uploaded range is used first, then the requested one.
      expect(facturas.map((f) => f.folio).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(long.folio).toBe(31);
      const longXml = await api('GET', `/api/v1/tenants/${tenantId}/dte/${long.id as string}/xml`);
      expect(longXml.status).toBe(200);
      documents.push({ name: 'factura-60-lineas.xml', bytes: longXml.body });
      expect(longXml.body.toString('latin1').match(/<DscItem>/g)).toHaveLength(60);

      // A credit note annulling the first factura.
      const first = facturas.find((f) => f.folio === 1)!;
      const nc = await create(tenantId, 61, {
        referencias: [{ tipoDocRef: 33, folioRef: 1, fechaRef: first.fechaEmision, codRef: 1, razonRef: 'Anula factura' }],
      });
      await send(tenantId, [nc.id as string]);
      expect((await waitFinal([nc.id as string])).get(nc.id as string)).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });

      // Rejected by the SII (sandbox: the receptor's razón social). The EnvioDTE's status gives counts
      // only, so the factura is found among its envelope's facturas with QueryEstDte; the boleta's
      // code comes from the envío's detail.
      const goodFactura = await create(tenantId, 33);
      const badFactura = await create(tenantId, 33, {
        receptor: { ...(dteBody(33).receptor as object), razonSocial: 'Cliente RECHAZO SpA' },
      });
      const badBoleta = await create(tenantId, 39, { receptor: { rut: '77.777.777-7', razonSocial: 'Cliente RECHAZO SpA' } });
      const mixed = [goodFactura.id as string, badFactura.id as string, badBoleta.id as string];
      await send(tenantId, mixed);
      const bad = await waitFinal(mixed);
      expect(bad.get(goodFactura.id as string)).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });
      expect(bad.get(badFactura.id as string)).toMatchObject({
        status: 'rejected',
        sii: { estado: 'RCH', glosa: expect.stringMatching(/^DTE Rechazado por el SII \(1 de 2/) },
      });
      expect(bad.get(badBoleta.id as string)).toMatchObject({ status: 'rejected', sii: { glosa: expect.stringMatching(/^SBX-3-001/) } });

      // Tokens: one SOAP token (uploads, QueryEstUp, QueryEstDte) and one REST token (boletas) for the whole run.
      const sii = (await emulatorStats(emu)).sii;
      expect(sii.tokensIssued).toEqual({ soap: 1, rest: 1 });
      expect(sii.routes['GetTokenFromSeed']?.total).toBe(1);
      expect(sii.routes['boleta.electronica.token']?.total).toBe(1);
      expect(sii.routes['DTEUpload']?.total).toBe(3);
      expect(sii.routes['boleta.electronica.envio']?.total).toBe(2);
      expect(sii.routes['QueryEstDte']?.total ?? 0).toBeGreaterThanOrEqual(1);
      expect(sii.routes['QueryEstDte']?.total ?? 0).toBeLessThanOrEqual(2);
    });

    it('the same flow’s core through a SimpleAPI tenant still passes, without a call to the SII’s own services', async () => {
      const siiBefore = (await emulatorStats(emu)).sii.total;
      const sendsBefore = (await emulatorStats(emu)).routes['send']?.total ?? 0;
      const tenantId = await readyTenantOverHttp(api, SANDBOX_API_KEY);
      expect((await api('GET', `/api/v1/tenants/${tenantId}/credentials/status`)).json).toMatchObject({
        provider: 'simpleapi',
        ready: true,
      });
      const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte: 33, cantidad: 5 });
      expect(f.status, f.body.toString()).toBe(201);
      expect(f.json).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 5 } });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await create(tenantId, 33)).id as string);
      const envios = await send(tenantId, ids);
      expect(envios.map((e) => e.tipoEnvio)).toEqual(['EnvioDTE']);
      const finals = await waitFinal(ids);
      for (const id of ids) expect(finals.get(id)).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });
      const after = await emulatorStats(emu);
      expect(after.sii.total).toBe(siiBefore);
      expect((after.routes['send']?.total ?? 0) - sendsBefore).toBe(1);
    });

    it(`every uploaded envelope: no line over ${SII_MAX_LINE} characters, one element per line, and check-sii-xml passes`, () => {
      // Direct: 30 facturas + the 60-line one (EnvioDTE), 10 boletas (EnvioBOLETA), the note, the two rejections; SimpleAPI: 3 facturas.
      expect(envelopes).toHaveLength(6);
      for (const e of envelopes) {
        const longest = Math.max(
          ...e.bytes
            .toString('latin1')
            .split('\n')
            .map((l) => l.length),
        );
        expect(longest, e.name).toBeLessThanOrEqual(SII_MAX_LINE);
        expectOneElementPerLine(e.bytes);
      }
      const check = runCheckSiiXml([...envelopes, ...documents], { cafKeyPem: fs.readFileSync(emu.siiPublicKey, 'utf8') });
      expect(check.failures, check.output).toEqual([]);
      expect(check.exitCode).toBe(0);
    });
  });
}
