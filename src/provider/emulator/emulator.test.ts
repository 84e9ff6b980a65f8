import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDte, buildEnvelope, issueCaf, parseCaf, verifyCaf, type Caf, type DteInput } from '../../dte/index.ts';
import { normalizeDte } from '../../dte/normalize.ts';
import { buildDocumentBody, stampDocument, DTE_OPEN_TAG } from '../../dte/dte-xml.ts';
import { buildSignature } from '../../dte/xmldsig.ts';
import { sampleDteInput } from '../../../test/support/dte/fixtures.ts';
import { createTestCertificate, type TestCertificate } from '../../../test/support/dte/test-certificate.ts';
import { manualClock } from '../../lib/clock.ts';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { ProviderError, type Provider, type ProviderCredentials } from '../port.ts';
import { createSimpleApiProvider } from '../simpleapi/simpleapi.ts';
import { createInProcessEmulator, type InProcessEmulator } from './inprocess.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { ephemeralSiiKey } from './sii-key.ts';
import { startStandaloneEmulator } from './standalone.ts';

const RUT = '76192083-9';
const T0 = '2026-03-02T12:30:00.000Z';
const DAY = 86_400_000;

let cert: TestCertificate;
let pfx: Buffer;
const PASSWORD = 'clave-del-pfx';

beforeAll(() => {
  cert = createTestCertificate({ rut: '12345678-5' });
  pfx = cert.toPfx(PASSWORD);
});

const creds = (apiKey = 'sandbox-key-ok'): ProviderCredentials => ({ apiKey, pfx, pfxPassword: PASSWORD, rutCertificado: cert.rut });

async function caf(p: Provider, tipoDte: number, cantidad = 10): Promise<Caf> {
  return parseCaf((await p.requestCaf(creds(), { rutEmpresa: RUT, tipoDte, cantidad, ambiente: 'certificacion' })).cafXml);
}

function envelope(dtes: Buffer[], now: Date, over: Partial<Parameters<typeof buildEnvelope>[0]> = {}): Buffer {
  return buildEnvelope({ dtes, rutEmisor: RUT, fechaResolucion: '2014-08-22', numeroResolucion: 80, signer: cert.signer, now, ...over })
    .xml;
}

async function sendAndWait(p: Provider, env: Buffer, tipo: 'dte' | 'boleta' = 'dte') {
  const up = await p.upload(creds(), { rutEmpresa: RUT, envelope: env, tipo, ambiente: 'certificacion' });
  return p.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo, ambiente: 'certificacion' });
}

/** A correctly signed and stamped DTE whose totals were changed before signing. */
function dteWithWrongIva(c: Caf, folio: number, now: Date): Buffer {
  const d = normalizeDte(sampleDteInput(33, folio, { fechaEmision: now.toISOString().slice(0, 10) }));
  d.totals = { ...d.totals, iva: d.totals.iva + 1, montoTotal: d.totals.montoTotal + 1 };
  const ts = now.toISOString().slice(0, 19);
  const ted = stampDocument(d, c, ts);
  const id = `F${folio}T33`;
  const content = buildDocumentBody(d) + ted.xml + `<TmstFirma>${ts}</TmstFirma></Documento>`;
  const sig = buildSignature(id, `<Documento xmlns="http://www.sii.cl/SiiDte" ID="${id}">${content}`, cert.signer);
  return Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${DTE_OPEN_TAG}<Documento ID="${id}">${content}${sig}</DTE>`, 'latin1');
}

describeEachDb('emulator in-process', (backend) => {
  let tdb: TestDb;
  let emu: InProcessEmulator;
  const clock = manualClock(T0);
  const input = (tipo: 33 | 34 | 39 | 41 | 46 | 52 | 56 | 61, folio: number, over: Partial<DteInput> = {}) =>
    sampleDteInput(tipo, folio, { fechaEmision: clock.now().toISOString().slice(0, 10), ...over });
  const build = (c: Caf, inp: DteInput) => buildDte(inp, { caf: c, signer: cert.signer, now: clock.now() }).xml;

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    emu = createInProcessEmulator({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      slowMs: 300,
      schemaValidator: schemaValidatorFrom(),
    });
  });
  afterAll(async () => {
    await emu.close();
    await tdb.close();
  });

  it('issues CAFs signed by its SII key (IDK 666), in consecutive ranges that never overlap', async () => {
    const a = await caf(emu, 33, 5);
    const b = await caf(emu, 33, 3);
    expect(a.idk).toBe(666);
    expect([a.desde, a.hasta, b.desde, b.hasta]).toEqual([1, 5, 6, 8]);
    expect(a.rutEmisor).toBe(RUT);
    expect(a.fechaAutorizacion).toBe('2026-03-02');
    expect(verifyCaf(a, { '666': emu.siiKey.publicKey }).valid).toBe(true);
    expect(verifyCaf(a, { '666': ephemeralSiiKey().publicKey }).valid).toBe(false);
  });

  it('answers REC at upload, then EPR with every document accepted', async () => {
    clock.set(T0);
    const c33 = await caf(emu, 33);
    const c61 = await caf(emu, 61);
    const f = build(c33, input(33, c33.desde));
    const n = build(
      c61,
      input(61, c61.desde, {
        referencias: [{ tipoDocRef: 33, folioRef: c33.desde, fechaRef: '2026-03-02', codRef: 1, razonRef: 'Anula' }],
      }),
    );
    const up = await emu.upload(creds(), {
      rutEmpresa: RUT,
      envelope: envelope([f, n], clock.now()),
      tipo: 'dte',
      ambiente: 'certificacion',
    });
    expect(up.estado).toBe('REC');
    expect(up.raw?.toString('latin1')).toContain(`<TRACKID>${up.trackId}</TRACKID>`);
    const st = await emu.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: 'certificacion' });
    expect(st.final).toBe(true);
    expect(st.estado).toBe('EPR');
    expect(st.documents.map((d) => [d.tipoDte, d.folio, d.status, d.estado])).toEqual([
      [33, c33.desde, 'accepted', 'DOK'],
      [61, c61.desde, 'accepted', 'DOK'],
    ]);
    expect(st.estadistica).toEqual([
      { tipoDte: 33, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 },
      { tipoDte: 61, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 },
    ]);
    const ds = await emu.documentStatus(creds(), {
      rutEmpresa: RUT,
      tipoDte: 33,
      folio: c33.desde,
      rutReceptor: '77777777-7',
      fechaEmision: '2026-03-02',
      montoTotal: buildDte(input(33, c33.desde), { caf: c33, signer: cert.signer, now: clock.now() }).totals.montoTotal,
      ambiente: 'certificacion',
    });
    expect(ds.estado).toBe('DOK');
  });

  it("walks the SII's stages (REC, SOK, CRT, FOK, PRD) until the processing delay has passed, then shows the verdict", async () => {
    const slow = createInProcessEmulator({ db: tdb.db, clock, siiKey: emu.siiKey, processingDelayMs: 5000 });
    const c = await caf(slow, 34);
    const up = await slow.upload(creds(), {
      rutEmpresa: RUT,
      envelope: envelope([build(c, input(34, c.desde))], clock.now()),
      tipo: 'dte',
      ambiente: 'certificacion',
    });
    const q = () => slow.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: 'certificacion' });
    const seen: [string, boolean][] = [];
    for (let i = 0; i < 5; i++) {
      const st = await q();
      seen.push([st.estado, st.final]);
      clock.advance(1000);
    }
    expect(seen).toEqual([
      ['REC', false],
      ['SOK', false],
      ['CRT', false],
      ['FOK', false],
      ['PRD', false],
    ]);
    expect(await q()).toMatchObject({ estado: 'EPR', final: true });
    await slow.close();
  });

  it('rejects a reused folio (DTE-3-101) but gives an identical resend its first verdict', async () => {
    const c = await caf(emu, 33);
    const first = build(c, input(33, c.desde));
    expect((await sendAndWait(emu, envelope([first], clock.now()))).documents[0]!.status).toBe('accepted');
    const again = await sendAndWait(emu, envelope([first], clock.now()));
    expect(again.documents[0]).toMatchObject({ status: 'accepted', estado: 'DOK' });
    const other = build(c, input(33, c.desde, { detalle: [{ nombre: 'Otra cosa', cantidad: 1, precioUnitario: 1000 }] }));
    const st = await sendAndWait(emu, envelope([other], clock.now()));
    expect(st.documents[0]).toMatchObject({ status: 'rejected', estado: 'RCH' });
    expect(st.documents[0]!.glosa).toMatch(/^DTE-3-101 Folio para este Tipo de documento ya fue recibido/);
  });

  it('rejects a DTE whose signed content was altered (DTE-3-505)', async () => {
    const c = await caf(emu, 33);
    const good = build(c, input(33, c.desde)).toString('latin1');
    // Same length and still schema-valid: only the signature can tell.
    const tampered = Buffer.from(good.replace('<GiroRecep>Comercio', '<GiroRecep>Comerzio'), 'latin1');
    expect(tampered.equals(Buffer.from(good, 'latin1'))).toBe(false);
    const st = await sendAndWait(emu, envelope([tampered], clock.now()));
    expect(st.estado).toBe('EPR');
    expect(st.documents[0]!.status).toBe('rejected');
    expect(st.documents[0]!.glosa).toContain('DTE-3-505 Firma DTE Incorrecta');
  });

  it('rejects a document stamped before its CAF expired but received after (CAF-3-517)', async () => {
    clock.set(T0);
    const c = await caf(emu, 56);
    clock.advance(179 * DAY);
    const ref = { tipoDocRef: 33, folioRef: 1, fechaRef: '2026-03-02', codRef: 1 as const, razonRef: 'Anula' };
    const doc = build(c, input(56, c.desde, { referencias: [ref] }));
    clock.advance(2 * DAY);
    const st = await sendAndWait(emu, envelope([doc], clock.now()));
    expect(st.documents[0]!.status).toBe('rejected');
    expect(st.documents[0]!.glosa).toContain('CAF-3-517 CAF Vencido');
    clock.set(T0);
  });

  it('rejects a CAF the SII never granted to the issuer (CAF-3-519)', async () => {
    const forged = issueCaf({
      rutEmisor: RUT,
      razonSocial: 'X',
      tipoDte: 34,
      desde: 900_000,
      hasta: 900_010,
      fechaAutorizacion: '2026-03-01',
      idk: 666,
      siiPrivateKey: emu.siiKey.privateKey,
    }).caf;
    const st = await sendAndWait(emu, envelope([build(forged, input(34, 900_000))], clock.now()));
    expect(st.documents[0]!.status).toBe('rejected');
    expect(st.documents[0]!.glosa).toContain('CAF-3-519');
  });

  it('gives wrong totals a reparo (accepted with objections), not a rejection', async () => {
    const c = await caf(emu, 33);
    const st = await sendAndWait(emu, envelope([dteWithWrongIva(c, c.desde, clock.now())], clock.now()));
    expect(st.documents[0]).toMatchObject({ status: 'accepted_with_objections', estado: 'RLV' });
    expect(st.documents[0]!.glosa).toContain('HED-2-302');
  });

  it('rejects the whole envelope: RFR for a broken envelope signature, RCT for a wrong carátula, RSC for the wrong kind', async () => {
    const c = await caf(emu, 33, 5);
    const d = build(c, input(33, c.desde));
    const env = envelope([d], clock.now()).toString('latin1');
    const rfr = await sendAndWait(emu, Buffer.from(env.replace('<NroResol>80</NroResol>', '<NroResol>81</NroResol>'), 'latin1'));
    expect(rfr).toMatchObject({ estado: 'RFR', final: true, documents: [] });
    const rct = await sendAndWait(emu, envelope([d], clock.now(), { rutReceptor: '77777777-7' }));
    expect(rct.estado).toBe('RCT');
    const rsc = await sendAndWait(emu, envelope([d], clock.now()), 'boleta');
    expect(rsc.estado).toBe('RSC');
    expect(rsc.glosa).toMatch(/^Rechazado por Error en Schema/);
  });

  it('sandbox: razón social RECHAZO rejects, REPARO objects; boletas travel in EnvioBOLETA', async () => {
    const c = await caf(emu, 33);
    const rej = build(c, input(33, c.desde, { receptor: { rut: '77.777.777-7', razonSocial: 'Prueba RECHAZO SpA' } }));
    const rep = build(c, input(33, c.desde + 1, { receptor: { rut: '77.777.777-7', razonSocial: 'Prueba reparo SpA' } }));
    const st = await sendAndWait(emu, envelope([rej, rep], clock.now()));
    expect(st.documents.map((x) => [x.status, x.glosa.slice(0, 9)])).toEqual([
      ['rejected', 'SBX-3-001'],
      ['accepted_with_objections', 'SBX-2-001'],
    ]);
    const b = await caf(emu, 39);
    const bol = await sendAndWait(emu, envelope([build(b, input(39, b.desde))], clock.now()), 'boleta');
    expect(bol.documents[0]).toMatchObject({ tipoDte: 39, status: 'accepted' });
  });

  it('sandbox keys: invalid, expired, quota, unavailable and slow', async () => {
    const err = async (key: string) => {
      try {
        await emu.requestCaf(creds(key), { rutEmpresa: RUT, tipoDte: 33, cantidad: 1, ambiente: 'certificacion' });
      } catch (e) {
        return e as ProviderError;
      }
      throw new Error('expected a failure');
    };
    expect((await err('short')).kind).toBe('invalid_api_key');
    expect((await err('my-invalid-key')).kind).toBe('invalid_api_key');
    expect((await err('key-expired-123')).kind).toBe('expired_api_key');
    expect((await err('key-quota-123')).kind).toBe('quota_exhausted');
    expect((await err('key-unavailable-1')).kind).toBe('unavailable');
    const q = await emu.verifyApiKey('key-quota-123');
    expect(q.quota.some((x) => x.uso >= x.maximo)).toBe(true);
    await expect(emu.verifyApiKey('key-expired-123')).rejects.toMatchObject({ kind: 'expired_api_key' });
    const t = Date.now();
    await emu.verifyApiKey('key-slow-12345');
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
  });

  it('refuses a .pfx that does not open, like SimpleAPI (401 naming the certificate)', async () => {
    const e = (await emu
      .requestCaf({ ...creds(), pfxPassword: 'wrong' }, { rutEmpresa: RUT, tipoDte: 33, cantidad: 1, ambiente: 'certificacion' })
      .catch((x: unknown) => x)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe('rejected');
    expect(e.message).toMatch(/certificado/i);
    expect(e.message).not.toContain('wrong');
  });
});

describe('emulator standalone over HTTP, with the simpleapi adapter', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves SimpleAPI routes over a socket and keeps its records across a restart', async () => {
    let emu = await startStandaloneEmulator({ port: 0, dataDir: dir, processingDelayMs: 0 });
    const client = (url: string) => createSimpleApiProvider({ apiBaseUrl: url, serviciosBaseUrl: url, timeoutMs: 10_000, retries: 0 });
    let p = client(emu.url);
    expect(fs.readFileSync(path.join(dir, 'sii-666.pub.pem'), 'utf8')).toBe(emu.siiKey.publicKeyPem);
    const c = parseCaf((await p.requestCaf(creds(), { rutEmpresa: RUT, tipoDte: 33, cantidad: 2, ambiente: 'produccion' })).cafXml);
    const now = new Date();
    const d = buildDte(sampleDteInput(33, c.desde, { fechaEmision: now.toISOString().slice(0, 10) }), { caf: c, signer: cert.signer, now });
    const up = await p.upload(creds(), { rutEmpresa: RUT, envelope: envelope([d.xml], now), tipo: 'dte', ambiente: 'produccion' });
    await expect(p.verifyApiKey('bad')).rejects.toMatchObject({ kind: 'invalid_api_key' });
    await expect(p.verifyApiKey('key-expired-123')).rejects.toMatchObject({ kind: 'expired_api_key' });
    await emu.close();

    emu = await startStandaloneEmulator({ port: 0, dataDir: dir, processingDelayMs: 0 });
    p = client(emu.url);
    const st = await p.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: 'produccion' });
    expect(st.documents[0]).toMatchObject({ folio: c.desde, status: 'accepted' });
    const next = parseCaf((await p.requestCaf(creds(), { rutEmpresa: RUT, tipoDte: 33, cantidad: 1, ambiente: 'produccion' })).cafXml);
    expect(next.desde).toBe(c.hasta + 1);
    expect(verifyCaf(next, { '666': emu.siiKey.publicKey }).valid).toBe(true);
    const key = await (await fetch(`${emu.url}/emulator/sii-public-key.pem`)).text();
    expect(key).toBe(emu.siiKey.publicKeyPem);
    await emu.close();
  });
});
