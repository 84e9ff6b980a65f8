import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSeed } from '../../dte/index.ts';
import { describeEachDb } from '../../../test/support/db.ts';
import { createTestCertificate } from '../../../test/support/dte/test-certificate.ts';
import { startSiiEmulator, tenantCredentials, type SiiEmulator } from '../emulator/sii/sii.test-support.ts';
import { ProviderError } from '../port.ts';
import { siiHosts } from './context.ts';
import { tagText } from './http.ts';
import { soapCall } from './soap.ts';
import { createSiiTokens } from './tokens.ts';

describeEachDb('SII tokens against the emulator over HTTP', (backend) => {
  let emu: SiiEmulator;
  const { creds, cert } = tenantCredentials();
  const http = () => ({ hosts: siiHosts(emu.baseUrl), fetch: globalThis.fetch, timeoutMs: 10_000 });

  beforeAll(async () => {
    emu = await startSiiEmulator(backend);
  });
  afterAll(async () => emu.close());

  it('fetches a SOAP token once (single flight) and reuses it', async () => {
    const tokens = createSiiTokens({ http: http() });
    const got = await Promise.all(Array.from({ length: 5 }, () => tokens.get('soap', creds, 'certificacion')));
    expect(new Set(got).size).toBe(1);
    expect(got[0]).toMatch(/^[A-Za-z0-9]{13}$/);
    for (let i = 0; i < 20; i++) expect(await tokens.get('soap', creds, 'certificacion')).toBe(got[0]);
    expect(tokens.fetched()).toEqual({ soap: 1, rest: 0 });
    // Another environment or kind is another token.
    const rest = await tokens.get('rest', creds, 'certificacion');
    expect(rest).not.toBe(got[0]);
    await tokens.get('soap', creds, 'produccion');
    expect(tokens.fetched()).toEqual({ soap: 2, rest: 1 });
    const stats = emu.core.stats().sii;
    expect(stats.tokensIssued).toEqual({ soap: 2, rest: 1 });
    expect(stats.routes.CrSeed?.total).toBe(2);
    expect(stats.routes['boleta.electronica.token']?.total).toBe(1);
  });

  it('renews an expired token, and an invalidated one', async () => {
    let t = 0;
    const tokens = createSiiTokens({ http: http(), now: () => t, soapTtlMs: 10 * 60_000 });
    const a = await tokens.get('soap', creds, 'certificacion');
    t += 5 * 60_000;
    expect(await tokens.get('soap', creds, 'certificacion')).toBe(a);
    t += 5 * 60_000;
    const b = await tokens.get('soap', creds, 'certificacion');
    expect(b).not.toBe(a);
    tokens.invalidate('soap', creds, 'certificacion', 'not-the-current-one');
    expect(await tokens.get('soap', creds, 'certificacion')).toBe(b);
    tokens.invalidate('soap', creds, 'certificacion', b);
    expect(await tokens.get('soap', creds, 'certificacion')).not.toBe(b);
    expect(tokens.fetched().soap).toBe(3);
  });

  it('the REST token lives an hour from its last use', async () => {
    let t = 0;
    const tokens = createSiiTokens({ http: http(), now: () => t });
    const a = await tokens.get('rest', creds, 'certificacion');
    for (let i = 0; i < 5; i++) {
      t += 50 * 60_000;
      expect(await tokens.get('rest', creds, 'certificacion')).toBe(a);
    }
    t += 61 * 60_000;
    expect(await tokens.get('rest', creds, 'certificacion')).not.toBe(a);
  });

  describe('the emulated GetTokenFromSeed', () => {
    const seed = async () =>
      tagText(
        await soapCall(http(), {
          ambiente: 'certificacion',
          path: '/DTEWS/CrSeed.jws',
          service: 'CrSeed',
          operation: 'getSeed',
          params: [],
        }),
        'SEMILLA',
      )!;
    const token = async (pszXml: string) =>
      soapCall(http(), {
        ambiente: 'certificacion',
        path: '/DTEWS/GetTokenFromSeed.jws',
        service: 'GetTokenFromSeed',
        operation: 'getToken',
        params: [['pszXml', pszXml]],
      });
    const estado = (xml: string) => [tagText(xml, 'ESTADO'), tagText(xml, 'GLOSA')];

    it('answers a 12-digit seed and a token for it, once', async () => {
      const s = await seed();
      expect(s).toMatch(/^\d{12}$/);
      const first = await token(signSeed(s, cert.signer));
      expect(estado(first)).toEqual(['00', 'Token Creado']);
      expect(estado(await token(signSeed(s, cert.signer)))).toEqual(['08', 'NO PUEDO ACT. SEED CON TOKEN']);
      expect(estado(await token(signSeed('999999999999', cert.signer)))).toEqual(['08', 'NO Existe SEED']);
    });

    it('times a seed out after two minutes', async () => {
      const s = await seed();
      emu.clock.advance(2 * 60_000 + 1);
      expect(estado(await token(signSeed(s, cert.signer)))).toEqual(['08', 'TIME-OUT DEL SEED']);
    });

    it('refuses bad signatures, other keys and certificates without a RUT', async () => {
      const s = await seed();
      // The seed's last digit changed (to another digit, whatever it was) after signing.
      const tampered = `${s.slice(0, 11)}${(Number(s.slice(11)) + 1) % 10}`;
      expect(estado(await token(signSeed(s, cert.signer).replace(`>${s}<`, `>${tampered}<`)))[0]).toMatch(/^0[58]$/);
      expect(estado(await token('<getToken>')).at(0)).toBe('02');
      const noRut = createTestCertificate({ withoutRut: true });
      expect(estado(await token(signSeed(await seed(), noRut.signer)))[0]).toBe('-07');
      const expired = createTestCertificate({ notBefore: new Date('2020-01-01'), notAfter: new Date('2021-01-01') });
      expect(estado(await token(signSeed(await seed(), expired.signer)))[0]).toBe('-3');
    });

    it('makes the adapter say why the certificate was refused, without the token', async () => {
      const noRut = tenantCredentials(createTestCertificate({ withoutRut: true })).creds;
      const tokens = createSiiTokens({ http: http() });
      const e = await tokens.get('soap', noRut, 'certificacion').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).kind).toBe('certificate_rejected');
      expect((e as ProviderError).message).toContain('ESTADO -07');
      const bad = await tokens.get('soap', { ...creds, pfxPassword: 'wrong' }, 'certificacion').catch((x: unknown) => x);
      expect((bad as ProviderError).kind).toBe('certificate_rejected');
      expect(tokens.fetched().soap).toBe(0);
    });
  });
});
