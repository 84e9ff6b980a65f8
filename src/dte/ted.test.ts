import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTed } from './ted.ts';
import { parseCaf } from './caf.ts';
import { flattenXml } from './xml-decode.ts';
import { OFFICIAL_CAF, OFFICIAL_ENVIO } from '../../test/support/dte/sii-fixtures.ts';

const official = readFileSync(OFFICIAL_ENVIO, 'latin1');
const caf = parseCaf(readFileSync(OFFICIAL_CAF));

const officialInput = {
  rutEmisor: '97975000-5',
  tipoDte: 33,
  folio: 60,
  fechaEmision: '2003-10-13',
  rutReceptor: '77777777-7',
  razonSocialReceptor: 'EMPRESA  LTDA',
  montoTotal: 119000,
  primerItem: 'Parlantes Multimedia 180W.',
  timestamp: '2003-10-13T09:33:20',
  caf,
};

describe('TED', () => {
  it("reproduces the SII example's FRMT byte for byte from its DD and the test CAF key", () => {
    const ted = buildTed(officialInput);
    const officialDd = flattenXml(/<DD>[\s\S]*?<\/DD>/.exec(official)?.[0] ?? '');
    expect(ted.dd).toBe(officialDd);
    const officialFrmt = (/<FRMT algoritmo="SHA1withRSA">([\s\S]*?)<\/FRMT>/.exec(official)?.[1] ?? '').replace(/\s+/g, '');
    expect(ted.frmt).toBe(officialFrmt);
    expect(ted.frmt).toBe('GbmDcS9e/jVC2LsLIe1iRV12Bf6lxsILtbQiCkh6mbjckFCJ7fj/kakFTS06Jo8iS4HXvJj3oYZuey53Krniew==');
    expect(ted.tedBytes.toString('latin1')).toBe(ted.xml);
    expect(ted.xml.startsWith('<TED version="1.0"><DD><RE>97975000-5</RE>')).toBe(true);
  });

  it('cuts RSR/IT1 at 40 characters and drops quotes from them', () => {
    const ted = buildTed({
      ...officialInput,
      razonSocialReceptor: 'Comercial "El Ñandú" & Asociados Limitada de Responsabilidad',
      primerItem: "Item 'uno' <grande>",
    });
    expect(ted.dd).toContain('<RSR>Comercial El Ñandú &amp; Asociados Limitada</RSR>');
    expect(ted.dd).toContain('<IT1>Item uno &lt;grande&gt;</IT1>');
  });

  it('falls back to RR when the receiver has no name', () => {
    expect(buildTed({ ...officialInput, razonSocialReceptor: undefined }).dd).toContain('<RSR>77777777-7</RSR>');
  });

  it('refuses folios outside the CAF and mismatched CAFs', () => {
    expect(() => buildTed({ ...officialInput, folio: 201 })).toThrow(
      expect.objectContaining({ code: 'folio_out_of_range', param: 'folio' }),
    );
    expect(() => buildTed({ ...officialInput, tipoDte: 34 })).toThrow(expect.objectContaining({ code: 'caf_type_mismatch' }));
    expect(() => buildTed({ ...officialInput, rutEmisor: '76192083-9' })).toThrow(expect.objectContaining({ code: 'caf_rut_mismatch' }));
  });
});
