import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTestKit, sampleDteInput, TEST_EMISOR, TEST_FECHA } from '../../test/support/dte/fixtures.ts';
import { runCheckSiiXml } from '../../test/support/dte/check-sii-xml.ts';
import { verifyDteSync, verifyEnvelopeSync } from './verify/index.ts';
import { buildEnvelope } from './envelope.ts';
import { checkAmounts } from './amounts.ts';
import { DteEngineError } from './errors.ts';
import { toLatin1Typography } from './text-policy.ts';
import type { DteInput, TipoDte } from './types.ts';
import { SUPPORTED_TIPOS_DTE } from './types.ts';

const kit = createTestKit();
let folio = 1;

// Latin-1 text with the characters that matter for XML and for the TED.
const CHARS = [...'abcXYZ019 .,-/#&<>"\'ÁÉÍÓÚáéíóúÑñÜü°ª¿¡çÇ', '\t', '\u0001', '\u00a0', 'ÿ'];
const text = (max: number) =>
  fc
    .string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: max })
    .filter((s) => /[^\s\u0000-\u001f\u007f-\u009f]/.test(s.replace(/\u00a0/g, ' ')));
const qty = fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 3 })).map(([n, k]) => n / 10 ** k);
const price = fc.tuple(fc.integer({ min: 0, max: 9_999_999 }), fc.integer({ min: 0, max: 2 })).map(([n, k]) => n / 10 ** k);
const line = fc.record({ nombre: text(80), cantidad: qty, precioUnitario: price, exento: fc.boolean() });

const inputArb = fc
  .record({
    tipoDte: fc.constantFrom(...SUPPORTED_TIPOS_DTE),
    razonSocial: text(100),
    giro: text(60),
    detalle: fc.array(line, { minLength: 1, maxLength: 5 }),
    withReceptor: fc.boolean(),
  })
  .map(({ tipoDte, razonSocial, giro, detalle, withReceptor }): DteInput => {
    const lines = detalle.map((l, i) => (i === 0 && tipoDte === 33 ? { ...l, exento: false } : l));
    const boleta = tipoDte === 39 || tipoDte === 41;
    const base = sampleDteInput(tipoDte as TipoDte, folio++);
    const receptor = { rut: '77777777-7', razonSocial, giro, direccion: razonSocial.slice(0, 70), comuna: 'Santiago' };
    if (tipoDte === 43) return { ...base, detalle: lines.map((l) => ({ ...l, tipoDocLiquidado: 33 })), receptor };
    // Export amounts carry 4 decimals: keep them within what a number holds exactly (below 2^53 / 10^4).
    if (tipoDte >= 110)
      return {
        ...base,
        detalle: lines.map(({ exento: _e, ...l }) => ({ ...l, precioUnitario: Math.round((l.precioUnitario % 100_000) * 100) / 100 })),
      };
    return {
      ...base,
      receptor: boleta && !withReceptor ? undefined : receptor,
      detalle: lines,
      referencias:
        tipoDte === 56 || tipoDte === 61 ? [{ tipoDocRef: 33, folioRef: 1, fechaRef: TEST_FECHA, codRef: 1, razonRef: giro }] : undefined,
    };
  });

describe('property: random valid inputs', () => {
  it('always give documents our verifier accepts, with amounts checkAmounts agrees with', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const built = kit.build(input);
        const v = verifyDteSync(built.xml, { siiKeys: kit.sii.siiKeys });
        expect(v.errors).toEqual([]);
        expect(v.montoTotal).toBe(built.totals.montoTotal);
        const withAmounts = input.detalle.map((d, i) => ({ ...d, montoItem: built.totals.lineas[i] }));
        const opts = { moneda: input.exportacion?.moneda, otraMoneda: input.exportacion?.otraMoneda, comisiones: input.comisiones };
        expect(checkAmounts(input.tipoDte, withAmounts, built.totals.montoTotal, opts)).toEqual([]);
      }),
      { numRuns: 120 },
    );
  });

  it('a sample also passes check-sii-xml (single DTEs and envelopes)', () => {
    const samples = fc.sample(inputArb, 24);
    const built = samples.map((i) => kit.build(i));
    const dtes = built.filter((b) => b.envelope === 'EnvioDTE');
    const boletas = built.filter((b) => b.envelope === 'EnvioBOLETA');
    const common = {
      rutEmisor: TEST_EMISOR.rut,
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: kit.certificate.signer,
      now: new Date('2026-03-02T12:31:00Z'),
    };
    const files = dtes.map((b, i) => ({ name: `p${i}.xml`, bytes: b.xml }));
    if (dtes.length > 0) files.push({ name: 'env-dte.xml', bytes: buildEnvelope({ ...common, dtes: dtes.map((b) => b.xml) }).xml });
    if (boletas.length > 0) {
      const env = buildEnvelope({ ...common, dtes: boletas.map((b) => b.xml) });
      expect(verifyEnvelopeSync(env.xml, { siiKeys: kit.sii.siiKeys }).valid).toBe(true);
      files.push({ name: 'env-bol.xml', bytes: env.xml });
    }
    const r = runCheckSiiXml(files, { cafKeyPem: kit.sii.publicKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode).toBe(0);
  });
});

describe('property: characters outside Latin-1 (typographic ones are converted, see text-policy.ts)', () => {
  const outside = fc.oneof(
    fc.constantFrom('😀', '€', '™', '中', '\u{1F1E8}\u{1F1F1}', '\uD800'),
    fc
      .integer({ min: 0x100, max: 0x10ffff })
      .filter((c) => (c < 0xd800 || c > 0xdfff) && toLatin1Typography(String.fromCodePoint(c)) === String.fromCodePoint(c))
      .map((c) => String.fromCodePoint(c)),
  );
  it('are rejected with unsupported_character naming the field, never written', () => {
    fc.assert(
      fc.property(outside, fc.constantFrom('receptor.razonSocial', 'detalle[0].nombre', 'receptor.giro'), fc.nat(20), (ch, field, pos) => {
        const base = 'Nombre de prueba';
        const bad = base.slice(0, pos % base.length) + ch + base.slice(pos % base.length);
        const input: DteInput = {
          tipoDte: 33,
          folio: folio++,
          fechaEmision: TEST_FECHA,
          emisor: TEST_EMISOR,
          receptor: {
            rut: '77777777-7',
            razonSocial: field === 'receptor.razonSocial' ? bad : 'Receptor',
            giro: field === 'receptor.giro' ? bad : 'Giro',
            direccion: 'Calle 1',
            comuna: 'Santiago',
          },
          detalle: [{ nombre: field === 'detalle[0].nombre' ? bad : 'Item', cantidad: 1, precioUnitario: 100 }],
        };
        try {
          kit.build(input);
        } catch (e) {
          expect(e).toBeInstanceOf(DteEngineError);
          expect((e as DteEngineError).code).toBe('unsupported_character');
          expect((e as DteEngineError).param).toBe(field);
          return;
        }
        throw new Error('accepted a character outside Latin-1');
      }),
      { numRuns: 200 },
    );
  });
});
