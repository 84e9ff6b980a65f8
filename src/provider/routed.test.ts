import { describe, expect, it } from 'vitest';
import { ProviderError, type Provider, type ProviderCredentials } from './port.ts';
import { providerErrorToAppError } from './errors.ts';
import { createRoutedProvider, SII_PATH_UNAVAILABLE, TEST_PATH_UNAVAILABLE } from './routed.ts';

/** A provider that records which of its calls ran, answering each with its own name. */
function recording(name: 'simpleapi' | 'emulator') {
  const calls: string[] = [];
  const seen = (op: string) => async () => {
    calls.push(op);
    return { by: name } as never;
  };
  const provider: Provider = {
    name,
    verifyApiKey: seen('verifyApiKey'),
    requestCaf: seen('requestCaf'),
    upload: seen('upload'),
    uploadStatus: seen('uploadStatus'),
    documentStatus: seen('documentStatus'),
    annulFolios: seen('annulFolios'),
    registerAcceptance: seen('registerAcceptance'),
  };
  return { provider, calls };
}

const cert = { pfx: Buffer.from('pfx'), pfxPassword: 'x', rutCertificado: '12345678-5' };
const ambiente = 'certificacion' as const;
const rutEmpresa = '76192083-9';

/** Every port call but verifyApiKey, with `creds`. */
const everyCall = (p: Provider, creds: ProviderCredentials) => [
  () => p.requestCaf(creds, { rutEmpresa, tipoDte: 33, cantidad: 1, ambiente }),
  () => p.upload(creds, { rutEmpresa, envelope: Buffer.from('<x/>'), tipo: 'dte', ambiente }),
  () => p.uploadStatus(creds, { rutEmpresa, trackId: '1', tipo: 'boleta', ambiente }),
  () =>
    p.documentStatus(creds, {
      rutEmpresa,
      tipoDte: 33,
      folio: 1,
      rutReceptor: '96790240-3',
      fechaEmision: '2026-11-28',
      montoTotal: 1190,
      ambiente,
    }),
  () => p.annulFolios(creds, { rutEmpresa, tipoDte: 33, desde: 1, hasta: 2, ambiente }),
  () => p.registerAcceptance(creds, { rutEmisor: rutEmpresa, tipoDte: 33, folio: 1, accion: 'ACD', ambiente }),
];
const OPS = ['requestCaf', 'upload', 'uploadStatus', 'documentStatus', 'annulFolios', 'registerAcceptance'];

describe('the routed provider', () => {
  it("sends each call the way its credentials say: via 'sii' to the SII adapter, via 'simpleapi' or none to SimpleAPI", async () => {
    const simple = recording('simpleapi');
    const sii = recording('emulator');
    const p = createRoutedProvider({ simpleapi: simple.provider, sii: sii.provider });
    expect(p.name).toBe('simpleapi');

    for (const call of everyCall(p, { apiKey: '', via: 'sii', ...cert })) expect(await call()).toEqual({ by: 'emulator' });
    expect(sii.calls).toEqual(OPS);
    expect(simple.calls).toEqual([]);

    for (const call of everyCall(p, { apiKey: 'k', via: 'simpleapi', ...cert })) expect(await call()).toEqual({ by: 'simpleapi' });
    for (const call of everyCall(p, { apiKey: 'k', ...cert })) await call();
    expect(simple.calls).toEqual([...OPS, ...OPS]);
    expect(sii.calls).toEqual(OPS);
  });

  it('verifies a billing-provider API key with SimpleAPI, always', async () => {
    const simple = recording('simpleapi');
    const sii = recording('emulator');
    await createRoutedProvider({ simpleapi: simple.provider, sii: sii.provider }).verifyApiKey('k');
    await createRoutedProvider({ simpleapi: simple.provider }).verifyApiKey('k');
    expect(simple.calls).toEqual(['verifyApiKey', 'verifyApiKey']);
    expect(sii.calls).toEqual([]);
  });

  it("without an SII adapter, a direct tenant's calls fail as unavailable with what to do, and SimpleAPI is never asked", async () => {
    const simple = recording('simpleapi');
    const p = createRoutedProvider({ simpleapi: simple.provider });
    for (const call of everyCall(p, { apiKey: '', via: 'sii', ...cert })) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ kind: 'unavailable', message: SII_PATH_UNAVAILABLE });
    }
    expect(SII_PATH_UNAVAILABLE).toMatch(/not available in this installation/);
    expect(simple.calls).toEqual([]);
    // The other tenants are not affected.
    await p.upload({ apiKey: 'k', via: 'simpleapi', ...cert }, { rutEmpresa, envelope: Buffer.from('<x/>'), tipo: 'dte', ambiente });
    expect(simple.calls).toEqual(['upload']);
  });

  it("words the direct path's failures as the SII's, with the adapter's explanation; SimpleAPI's stay the billing provider's", async () => {
    const failing = (kind: ProviderError['kind'], message: string): Provider => ({
      ...recording('emulator').provider,
      upload: async () => {
        throw new ProviderError(kind, message);
      },
    });
    const upload = (p: Provider, via: 'sii' | 'simpleapi') =>
      p
        .upload({ apiKey: 'k', via, ...cert }, { rutEmpresa, envelope: Buffer.from('<x/>'), tipo: 'dte', ambiente })
        .catch((e: unknown) => e);
    const cases = [
      ['rejected', 'STATUS 7: the envelope does not follow the schema.', 'provider_rejected', /^The SII rejected the request: STATUS 7/],
      [
        'unavailable',
        'STATUS 9: the SII system is blocked.',
        'provider_unavailable',
        /^The SII is unreachable or failing: STATUS 9.*Retry later\.$/,
      ],
      ['timeout', 'No answer within 30 s.', 'provider_timeout', /^The SII did not answer in time: No answer/],
      [
        'certificate_rejected',
        'Token ESTADO 05.',
        'provider_certificate_rejected',
        /^The SII refused the tenant's certificate: Token ESTADO 05\. Check that its holder/,
      ],
    ] as const;
    for (const [kind, message, code, text] of cases) {
      const p = createRoutedProvider({ simpleapi: failing(kind, message), sii: failing(kind, message) });
      const direct = (await upload(p, 'sii')) as ProviderError;
      expect(direct.origin).toBe('sii');
      expect(providerErrorToAppError(direct)).toMatchObject({ code, message: expect.stringMatching(text) });
      const viaProvider = (await upload(p, 'simpleapi')) as ProviderError;
      expect(viaProvider.origin).toBe('provider');
      expect(providerErrorToAppError(viaProvider).code).toBe(code);
      expect(providerErrorToAppError(viaProvider).message).toMatch(/billing provider/);
    }
  });
});

describe('test mode (docs/design.md "Test mode")', () => {
  const slots = () => {
    const simpleapi = recording('simpleapi');
    const sii = recording('simpleapi');
    const test = recording('emulator');
    return {
      simpleapi,
      sii,
      test,
      routed: createRoutedProvider({ simpleapi: simpleapi.provider, sii: sii.provider, test: test.provider }),
    };
  };

  it("sends every call of a test tenant to the test path, whatever its `via`, and a live tenant's never", async () => {
    for (const via of ['simpleapi', 'sii'] as const) {
      const s = slots();
      for (const call of everyCall(s.routed, { apiKey: 'k', via, livemode: false, ...cert }))
        expect(await call()).toEqual({ by: 'emulator' });
      await s.routed.verifyApiKey('k', { livemode: false });
      expect([s.simpleapi.calls, s.sii.calls, s.test.calls.length]).toEqual([[], [], everyCall(s.routed, { apiKey: '' }).length + 1]);
      const live = slots();
      for (const call of everyCall(live.routed, { apiKey: 'k', via, livemode: true, ...cert })) await call();
      await live.routed.verifyApiKey('k');
      expect(live.test.calls).toEqual([]);
    }
  });

  it('refuses a test call where there is no test path, never sending it live', async () => {
    const simpleapi = recording('simpleapi');
    const routed = createRoutedProvider({ simpleapi: simpleapi.provider });
    await expect(
      routed.requestCaf({ apiKey: 'k', livemode: false }, { rutEmpresa, tipoDte: 33, cantidad: 1, ambiente }),
    ).rejects.toMatchObject({
      kind: 'unavailable',
      message: TEST_PATH_UNAVAILABLE,
    });
    await expect(routed.verifyApiKey('k', { livemode: false })).rejects.toMatchObject({ kind: 'unavailable' });
    expect(simpleapi.calls).toEqual([]);
  });

  it("routes a test call by `via` where the slots are the emulator already ('here')", async () => {
    const simpleapi = recording('emulator');
    const sii = recording('emulator');
    const routed = createRoutedProvider({ simpleapi: simpleapi.provider, sii: sii.provider, test: 'here' });
    await routed.requestCaf({ apiKey: '', via: 'sii', livemode: false, ...cert }, { rutEmpresa, tipoDte: 33, cantidad: 1, ambiente });
    await routed.verifyApiKey('k', { livemode: false });
    expect([simpleapi.calls, sii.calls]).toEqual([['verifyApiKey'], ['requestCaf']]);
  });
});
