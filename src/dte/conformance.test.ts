import { describe, expect, it } from 'vitest';
import { runCheckSiiXml } from '../../test/support/dte/check-sii-xml.ts';
import { createTestKit, sampleDteInput } from '../../test/support/dte/fixtures.ts';
import { expectOneElementPerLine } from '../../test/support/dte/lines.ts';
import { MAX_DETALLE_LINES } from './limits.ts';
import type { TipoDte } from './types.ts';

/**
 * Conformance against our checker, scripts/check-sii-xml.ts (xmllint against the SII XSDs,
 * xmlsec1 for both signature levels, openssl for TED FRMT and CAF FRMA). Fails, never skips, without the tools.
 */
const kit = createTestKit();
const cafKeyPem = kit.sii.publicKeyPem;
const DTE_TYPES: TipoDte[] = [33, 34, 46, 52, 56, 61];
const BOLETA_TYPES: TipoDte[] = [39, 41];

function envelope(tipos: TipoDte[], folio: number) {
  return kit.envelope(tipos.map((t, i) => kit.build(sampleDteInput(t, folio + i)).xml));
}

describe('check-sii-xml', () => {
  it('accepts every single DTE of types 33, 34, 46, 52, 56, 61', () => {
    const files = DTE_TYPES.map((t) => ({ name: `dte-${t}.xml`, bytes: kit.build(sampleDteInput(t, 10 + t)).xml }));
    const r = runCheckSiiXml(files, { cafKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.lines.filter((l) => l.startsWith('ok'))).toHaveLength(DTE_TYPES.length * 4);
  });

  it('accepts single boletas (39, 41): BOLETADefType, signature, TED and CAF', () => {
    // No schema declares a standalone boleta (BOLETADefType exists only inside EnvioBOLETA): the
    // checker validates the DTE against that type directly.
    const files = BOLETA_TYPES.map((t) => ({ name: `boleta-${t}.xml`, bytes: kit.build(sampleDteInput(t, 20 + t)).xml }));
    const r = runCheckSiiXml(files, { cafKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('valid against BOLETADefType');
    expect(r.lines.filter((l) => l.startsWith('ok'))).toHaveLength(BOLETA_TYPES.length * 4);
  });

  it('accepts an EnvioDTE with all six DTE types', () => {
    const env = envelope(DTE_TYPES, 30);
    expect(env.kind).toBe('EnvioDTE');
    const r = runCheckSiiXml([{ name: 'envio-dte.xml', bytes: env.xml }], { cafKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('envelope signature (SetDTE, in place)');
    expect(r.lines.filter((l) => l.startsWith('ok'))).toHaveLength(2 + DTE_TYPES.length * 3); // schema + envelope, then signature/TED/CAF per DTE
  });

  it('accepts an EnvioBOLETA with boletas 39 and 41', () => {
    const env = envelope([39, 41, 39], 40);
    expect(env.kind).toBe('EnvioBOLETA');
    expect(env.subTotales).toEqual([
      { tipoDte: 39, cantidad: 2 },
      { tipoDte: 41, cantidad: 1 },
    ]);
    const r = runCheckSiiXml([{ name: 'envio-boleta.xml', bytes: env.xml }], { cafKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode).toBe(0);
  });

  // The SII refuses a file with any line over 4,090 characters (xml-lines.ts): the largest documents
  // and envelopes we make are cut into lines, and the checker (which enforces the limit) agrees.
  it(`accepts a factura of ${MAX_DETALLE_LINES} lines and its EnvioDTE, each element on a line of its own`, () => {
    const detalle = Array.from({ length: MAX_DETALLE_LINES }, (_, i) => ({
      nombre: `Artículo número ${i + 1} del catálogo <edición 2026>`,
      descripcion: 'Descripción larga del artículo '.repeat(8).trim(),
      cantidad: i + 1,
      precioUnitario: 1990 + i,
    }));
    const factura = kit.build(sampleDteInput(33, 60, { detalle })).xml;
    expectOneElementPerLine(factura);
    const env = kit.envelope([factura]);
    expectOneElementPerLine(env.xml);
    const r = runCheckSiiXml(
      [
        { name: 'factura-60.xml', bytes: factura },
        { name: 'envio-factura-60.xml', bytes: env.xml },
      ],
      { cafKeyPem },
    );
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode, r.output).toBe(0);
  });

  it('accepts an EnvioBOLETA of 500 boletas (the most one envío may hold)', () => {
    const boletas = Array.from({ length: 500 }, (_, i) => kit.build(sampleDteInput(39, 500 + i)).xml);
    const env = kit.envelope(boletas);
    expectOneElementPerLine(env.xml);
    const r = runCheckSiiXml([{ name: 'envio-500-boletas.xml', bytes: env.xml }], { cafKeyPem });
    expect(r.failures, r.output).toEqual([]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.lines.filter((l) => l.startsWith('ok'))).toHaveLength(2 + 500 * 3);
  }, 60_000); // 500 openssl runs and one of xmlsec1 (scripts/check-sii-xml.ts): 8 s on a quiet 2-core machine

  it('flags a tampered envelope (sanity check of the oracle)', () => {
    const env = envelope([33], 50);
    const tampered = Buffer.from(env.xml.toString('latin1').replace('<NroResol>80</NroResol>', '<NroResol>81</NroResol>'), 'latin1');
    const r = runCheckSiiXml([{ name: 'tampered.xml', bytes: tampered }], { cafKeyPem });
    expect(r.exitCode).toBe(1);
    expect(r.failures.join('\n')).toContain('envelope signature');
  });
});
