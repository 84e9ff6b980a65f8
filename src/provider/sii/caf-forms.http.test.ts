import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCaf, verifyCaf } from '../../dte/index.ts';
import { manualClock } from '../../lib/clock.ts';
import { openTestDb, type TestDb } from '../../../test/support/db.ts';
import { legacyPfx, makeCert, modernPfx } from '../../../test/support/pfx.ts';
import { createEmulatorCore, type EmulatorCore } from '../emulator/emulator.ts';
import { NEW_ISSUER_MAX_AUTOR, startCafFormsListener } from '../emulator/sii/caf-forms.ts';
import { ephemeralSiiKey } from '../emulator/sii-key.ts';
import { ProviderError } from '../port.ts';
import { httpsTransport, requestCafViaForms, type CafFormsContext, type FormTransportFactory, type TlsIdentity } from './caf-forms.ts';
import { siiHosts, type SiiCredentials } from './context.ts';

/**
 * The CAF forms adapter against the emulator's CAF forms over real HTTPS: the tenant's .pfx as the
 * TLS client certificate, the emulator's self-signed server certificate trusted as an extra CA.
 */
const PASSWORD = 'clave-del-pfx';
let tdb: TestDb;
let core: EmulatorCore;
let listener: Awaited<ReturnType<typeof startCafFormsListener>>;
let ctx: CafFormsContext;
let creds: SiiCredentials;
const clock = manualClock('2026-03-02T12:30:00.000Z');
let rutSeq = 0;
/** A company of its own per test (folios are numbered per company). */
const company = () =>
  ['76192083-9', '76086428-5', '77777777-7', '96790240-3', '78416626-0', '11111111-1', '22222222-2', '33333333-3', '44444444-4'][rutSeq++]!;

const grants = async (rut: string, tipoDte: number) =>
  Number(
    (await tdb.db.query<{ n: string }>('select count(*) as n from emu_cafs where rut_emisor = $1 and tipo_dte = $2', [rut, tipoDte]))
      .rows[0]!.n,
  );

beforeAll(async () => {
  tdb = await openTestDb('pglite');
  core = createEmulatorCore({ db: tdb.db, clock, siiKey: ephemeralSiiKey(), processingDelayMs: 0 });
  listener = await startCafFormsListener(core);
  ctx = { hosts: siiHosts(listener.origin), timeoutMs: 10_000, ca: listener.ca };
  const cert = makeCert({ rut: '12345678-5', commonName: 'Firmante de Prueba' });
  creds = { pfx: modernPfx(cert, PASSWORD), pfxPassword: PASSWORD, rutCertificado: cert.rut };
});
afterAll(async () => {
  await listener?.close();
  await tdb?.close();
});

describe("a CAF through the SII's web forms (emulator over HTTPS)", () => {
  it('grants a CAF signed with the SII key; the first of a type confirms its first folio, the next continues the range', async () => {
    const rut = company();
    const { cafXml } = await requestCafViaForms(ctx, creds, { rutEmpresa: rut, tipoDte: 33, cantidad: 5, ambiente: 'certificacion' });
    const caf = parseCaf(cafXml);
    expect(caf).toMatchObject({ rutEmisor: rut, tipoDte: 33, desde: 1, hasta: 5 });
    expect(verifyCaf(caf, core.siiKeys).valid).toBe(true);
    const next = parseCaf(
      (await requestCafViaForms(ctx, creds, { rutEmpresa: rut, tipoDte: 33, cantidad: 3, ambiente: 'certificacion' })).cafXml,
    );
    expect(next).toMatchObject({ desde: 6, hasta: 8 });
    expect(await grants(rut, 33)).toBe(2);
  });

  it('opens an older .pfx (RC2-40, which OpenSSL 3 refuses) for the handshake too', async () => {
    const cert = makeCert({ rut: '12345678-5', commonName: 'Firmante de Prueba' });
    const legacy = { pfx: legacyPfx(cert, PASSWORD), pfxPassword: PASSWORD, rutCertificado: cert.rut };
    const { cafXml } = await requestCafViaForms(ctx, legacy, { rutEmpresa: company(), tipoDte: 61, cantidad: 2, ambiente: 'produccion' });
    expect(parseCaf(cafXml).tipoDte).toBe(61);
  });

  it('more than MAX_AUTOR: a rejection that says the limit and what to do, and nothing granted', async () => {
    const rut = company();
    const e = await requestCafViaForms(ctx, creds, {
      rutEmpresa: rut,
      tipoDte: 39,
      cantidad: NEW_ISSUER_MAX_AUTOR + 1,
      ambiente: 'certificacion',
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('rejected');
    expect((e as ProviderError).message).toContain(`MAX_AUTOR ${NEW_ISSUER_MAX_AUTOR}`);
    expect((e as ProviderError).message).toContain('LIBRUD-OFSF-DTE-3-1-02');
    expect((e as ProviderError).message).toContain(`Ask for at most ${NEW_ISSUER_MAX_AUTOR}`);
    expect(await grants(rut, 39)).toBe(0);
  });

  it('a grant whose answer was lost is recovered from the history on the retry, without a second grant', async () => {
    const rut = company();
    const since = clock.now();
    let dropped = 0;
    const losing: FormTransportFactory = (o) => {
      const inner = httpsTransport(o);
      return {
        close: inner.close,
        async send(r) {
          const res = await inner.send(r);
          if (r.url.includes('/of_genera_folio') && dropped++ === 0)
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          return res;
        },
      };
    };
    const req = { rutEmpresa: rut, tipoDte: 52, cantidad: 4, ambiente: 'certificacion' as const, resume: { since, held: [] } };
    const e = await requestCafViaForms({ ...ctx, transport: losing }, creds, req).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).transient).toBe(true);
    expect((e as ProviderError).message).toMatch(/may have granted/);
    expect(await grants(rut, 52)).toBe(1);

    const { cafXml } = await requestCafViaForms(ctx, creds, req);
    const caf = parseCaf(cafXml);
    expect(caf).toMatchObject({ tipoDte: 52, desde: 1, hasta: 4 });
    expect(verifyCaf(caf, core.siiKeys).valid).toBe(true);
    expect(await grants(rut, 52)).toBe(1);

    // Once the tenant holds that range, the same request asks anew.
    const again = parseCaf((await requestCafViaForms(ctx, creds, { ...req, resume: { since, held: [{ desde: 1, hasta: 4 }] } })).cafXml);
    expect(again).toMatchObject({ desde: 5, hasta: 8 });
    expect(await grants(rut, 52)).toBe(2);
  });

  it('without a client certificate the login opens no session: certificate_rejected', async () => {
    const anonymous: FormTransportFactory = (o) => httpsTransport({ ...o, identity: {} as TlsIdentity });
    const rut = company();
    const e = await requestCafViaForms({ ...ctx, transport: anonymous }, creds, {
      rutEmpresa: rut,
      tipoDte: 33,
      cantidad: 1,
      ambiente: 'certificacion',
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('certificate_rejected');
    expect(await grants(rut, 33)).toBe(0);
  });

  it('a server certificate that is not trusted: unavailable, saying so', async () => {
    const e = await requestCafViaForms({ ...ctx, ca: undefined }, creds, {
      rutEmpresa: company(),
      tipoDte: 33,
      cantidad: 1,
      ambiente: 'certificacion',
    }).catch((x: unknown) => x);
    expect((e as ProviderError).kind).toBe('unavailable');
    expect((e as ProviderError).message).toContain('does not trust');
  });

  it('a wrong .pfx password is certificate_rejected before any call', async () => {
    const e = await requestCafViaForms(
      ctx,
      { ...creds, pfxPassword: 'otra' },
      { rutEmpresa: company(), tipoDte: 33, cantidad: 1, ambiente: 'certificacion' },
    ).catch((x: unknown) => x);
    expect((e as ProviderError).kind).toBe('certificate_rejected');
    expect((e as ProviderError).message).not.toContain('otra');
  });
});
