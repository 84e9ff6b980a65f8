import { describe, expect, it } from 'vitest';
import { createTestKit, sampleDteInput } from '../../../test/support/dte/fixtures.ts';
import { exportFormFindings } from '../../provider/emulator/index.ts';
import { normalizeDocument, type DocumentInput } from '../normalize.ts';
import { isDteEngineError } from '../errors.ts';

/**
 * The exports' form rules refused before a folio, each the counterpart of what the emulator's
 * rules/export-form.ts finds in the XML (HED-3-314, HED-2-804): a document our API lets through
 * gets no reparo there (the "accepted" cases at the bottom are checked by both sides).
 */
const kit = createTestKit();
const base = sampleDteInput(110, 1) as DocumentInput;
const refusal = (input: DocumentInput): [string, string | undefined] | 'accepted' => {
  try {
    normalizeDocument(input);
    // What the engine accepts, the emulator's review of its XML finds nothing to object to.
    const xml = kit.build({ ...input, folio: 1 }).xml.toString('latin1');
    expect(exportFormFindings(xml, input.tipoDte)).toEqual([]);
    return 'accepted';
  } catch (e) {
    if (!isDteEngineError(e)) throw e;
    return [e.code, e.param];
  }
};
const goods = {
  ...base,
  indServicio: undefined,
  detalle: [{ nombre: 'Vino', cantidad: 10, unidad: 'CAJ', precioUnitario: 50 }],
  exportacion: {
    ...base.exportacion!,
    aduana: { ...base.exportacion!.aduana, totalClausulaVenta: 500, paisReceptor: 225 },
  },
} satisfies DocumentInput;

describe('export form (110, 111, 112)', () => {
  it('addresses every export to 55.555.555-5', () => {
    for (const tipoDte of [110, 111, 112] as const) {
      const input = { ...(sampleDteInput(tipoDte, 1) as DocumentInput), receptor: { ...base.receptor!, rut: '77.777.777-7' } };
      expect(refusal(input)).toEqual(['foreign_receptor_required', 'receptor.rut']);
    }
  });

  it("asks the factura 110 for the receptor's address and city", () => {
    expect(refusal({ ...base, receptor: { ...base.receptor!, ciudad: undefined } })).toEqual(['receptor_incomplete', 'receptor.ciudad']);
    expect(refusal({ ...base, receptor: { ...base.receptor!, direccion: undefined } })).toEqual([
      'receptor_incomplete',
      'receptor.direccion',
    ]);
    // Notes 111 and 112 do not need them (the format marks them for the factura).
    const note = sampleDteInput(112, 1) as DocumentInput;
    expect(refusal({ ...note, receptor: { ...note.receptor!, ciudad: undefined, direccion: undefined } })).toBe('accepted');
  });

  it('asks goods for the sale clause, the route, the country and each line’s quantity and unit', () => {
    expect(refusal(goods)).toBe('accepted');
    const aduana = goods.exportacion.aduana;
    expect(refusal({ ...goods, exportacion: { ...goods.exportacion, aduana: { ...aduana, clausulaVenta: undefined } } })).toEqual([
      'export_incomplete',
      'exportacion.aduana.clausulaVenta',
    ]);
    expect(refusal({ ...goods, exportacion: { ...goods.exportacion, aduana: { ...aduana, puertoEmbarque: undefined } } })).toEqual([
      'export_incomplete',
      'exportacion.aduana.puertoEmbarque',
    ]);
    expect(refusal({ ...goods, exportacion: { ...goods.exportacion, aduana: { ...aduana, paisReceptor: undefined } } })).toEqual([
      'export_incomplete',
      'exportacion.aduana.paisReceptor',
    ]);
    expect(refusal({ ...goods, detalle: [{ ...goods.detalle[0]!, unidad: undefined }] })).toEqual([
      'export_incomplete',
      'detalle[0].unidad',
    ]);
  });

  it('exempts services (3, 5) from the sale clause and the units, and hotels (4) from the route too', () => {
    const services = { nombre: 'Asesoría', cantidad: 1, precioUnitario: 100 };
    const noClause = { ...goods.exportacion, aduana: { viaTransporte: 4, puertoEmbarque: 901, puertoDesembarque: 262, paisReceptor: 225 } };
    expect(refusal({ ...goods, indServicio: 3, detalle: [services], exportacion: noClause })).toBe('accepted');
    expect(refusal({ ...goods, indServicio: 3, detalle: [services], exportacion: { ...noClause, aduana: { paisReceptor: 225 } } })).toEqual(
      ['export_incomplete', 'exportacion.aduana.viaTransporte'],
    );
    expect(refusal({ ...goods, indServicio: 4, detalle: [services], exportacion: { ...goods.exportacion, aduana: undefined } })).toBe(
      'accepted',
    );
  });
});
