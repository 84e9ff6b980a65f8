import { describe, expect, it } from 'vitest';
import { sampleDteInput } from '../../../test/support/dte/fixtures.ts';
import { normalizeDocument, type DocumentInput } from '../normalize.ts';
import { isDteEngineError } from '../errors.ts';
import { aduanaCode } from './aduana.ts';

/**
 * The Aduana's codes may be given by their names in its tables (README.md beside this file): the
 * document is the same as with the codes, and a name the table does not have is refused, naming it.
 */
const base = sampleDteInput(110, 1) as DocumentInput;
const withAduana = (aduana: Record<string, unknown>, formaPago: number | string): DocumentInput => ({
  ...base,
  exportacion: {
    ...base.exportacion!,
    formaPago,
    aduana: { ...base.exportacion!.aduana, ...aduana } as NonNullable<NonNullable<DocumentInput['exportacion']>['aduana']>,
  },
});

describe('Aduana codes by name', () => {
  it('reads the names of every table, without regard to case, accents or spacing', () => {
    expect(aduanaCode('modalidades_venta', 'a firme')).toBe(1);
    expect(aduanaCode('clausulas_venta', 'FOB')).toBe(5);
    expect(aduanaCode('transportes', 'Marítima,  fluvial y lacustre')).toBe(1);
    expect(aduanaCode('puertos', 'San Antonio')).toBe(906);
    expect(aduanaCode('paises', 'u.s.a.')).toBe(225);
    expect(aduanaCode('tipos_bulto', 'CONTENEDOR REFRIGERADO')).toBe(76);
    expect(aduanaCode('formas_pago', 'acred')).toBe(11);
    expect(aduanaCode('unidades', 'KN')).toBe(6);
    expect(aduanaCode('puertos', 'Atlantis')).toBeUndefined();
  });

  it('makes the same document from names as from codes', () => {
    const codes = withAduana(
      {
        modalidadVenta: 1,
        clausulaVenta: 5,
        viaTransporte: 1,
        puertoEmbarque: 906,
        puertoDesembarque: 222,
        unidadPesoBruto: 6,
        pesoBruto: 1200,
        paisReceptor: 225,
        paisDestino: 225,
        bultos: [{ tipo: 76, cantidad: 2 }],
      },
      11,
    );
    const names = withAduana(
      {
        modalidadVenta: 'A FIRME',
        clausulaVenta: 'fob',
        viaTransporte: 'MARITIMA, FLUVIAL Y LACUSTRE',
        puertoEmbarque: 'san antonio',
        puertoDesembarque: 'Balboa',
        unidadPesoBruto: 'kn',
        pesoBruto: 1200,
        paisReceptor: 'U.S.A.',
        paisDestino: 'u.s.a.',
        bultos: [{ tipo: 'CONTENEDOR REFRIGERADO', cantidad: 2 }],
      },
      'ACRED',
    );
    const fromCodes = normalizeDocument(codes);
    expect(fromCodes.exportacion?.aduana?.fields.puertoEmbarque).toBe(906);
    expect(normalizeDocument(names)).toEqual(fromCodes);
  });

  it('refuses a name the table does not have, naming the field and the table', () => {
    const refusal = (input: DocumentInput) => {
      try {
        normalizeDocument(input);
        return undefined;
      } catch (e) {
        if (!isDteEngineError(e)) throw e;
        return { code: e.code, param: e.param, message: e.message };
      }
    };
    expect(refusal(withAduana({ puertoEmbarque: 'Atlantis' }, 11))).toEqual({
      code: 'invalid_field',
      param: 'exportacion.aduana.puertoEmbarque',
      message: expect.stringContaining("'Atlantis' is not a name in the Aduana's puertos table"),
    });
    expect(refusal(withAduana({}, 'PAGARÉ MÁGICO'))).toMatchObject({ code: 'invalid_field', param: 'exportacion.formaPago' });
    expect(refusal(withAduana({ bultos: [{ tipo: 'CAJA FUERTE', cantidad: 1 }] }, 11))).toMatchObject({
      param: 'exportacion.aduana.bultos[0].tipo',
    });
  });
});
