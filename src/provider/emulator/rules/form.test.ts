import { describe, expect, it } from 'vitest';
import { codes, dte, RECEPTOR } from './dte.test-support.ts';
import { formFindings, rutCheckDigit } from './form.ts';

const ok33 = (over: Partial<typeof RECEPTOR> = {}) => dte({ tipo: 33, receptor: { ...RECEPTOR, ...over } });
/** A factura de exportación of goods with everything the format asks of it. */
const aduana = (f: Record<string, string> = {}) =>
  `<Transporte><Aduana>${Object.entries({
    CodModVenta: '1',
    CodClauVenta: '1',
    TotClauVenta: '50',
    CodViaTransp: '4',
    CodPtoEmbarque: '901',
    CodPtoDesemb: '262',
    CodPaisRecep: '225',
    ...f,
  })
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</Aduana></Transporte>`;
const export110 = (o: { servicio?: string; transporte?: string; rut?: string; line?: Record<string, string | number> } = {}) =>
  dte({
    tipo: 110,
    idDoc: { IndServicio: o.servicio },
    emisor: { CiudadOrigen: 'Santiago' },
    receptor: {
      RUTRecep: o.rut ?? '55555555-5',
      RznSocRecep: 'Globex',
      GiroRecep: 'Trade',
      DirRecep: '1 Main St',
      CiudadRecep: 'Springfield',
    },
    transporte: o.transporte ?? aduana(),
    detalle: [o.line ?? { IndExe: 1, NmbItem: 'Vino', QtyItem: 1, UnmdItem: 'U', PrcItem: 50, MontoItem: 50 }],
  });

describe('form rules (level 3 unless said)', () => {
  it('computes the módulo 11 check digit [REF §8]', () => {
    expect(['60803000', '97975000', '77777777', '66666666', '55555555', '76354771', '7880442'].map(rutCheckDigit)).toEqual([
      'K',
      '5',
      '7',
      '6',
      '5',
      'K',
      '4',
    ]);
  });

  it('accepts a complete factura', () => {
    expect(formFindings(ok33(), 33)).toEqual([]);
  });

  it('HED-3-310: a receptor RUT with a wrong check digit', () => {
    const f = formFindings(ok33({ RUTRecep: '77777777-8' }), 33);
    expect(f).toEqual([expect.objectContaining({ codigo: 'HED-3-310', detalle: 'RUTRecep 77777777-8, dígito verificador 7' })]);
  });

  it('HED-3-311: 66666666-6 on anything that is not a boleta', () => {
    expect(codes(formFindings(ok33({ RUTRecep: '66666666-6' }), 33))).toEqual(['HED-3-311']);
    expect(codes(formFindings(dte({ tipo: 61, receptor: { RUTRecep: '66666666-6', RznSocRecep: 'X' } }), 61))).toContain('HED-3-311');
    expect(formFindings(dte({ tipo: 39, receptor: { RUTRecep: '66666666-6' } }), 39)).toEqual([]);
  });

  it.each([33, 34, 43, 46, 52])('HED-3-312: giro, dirección and comuna of the receptor on %i', (tipo) => {
    const doc = dte({
      tipo,
      idDoc: { IndTraslado: tipo === 52 ? 1 : undefined },
      receptor: { RUTRecep: '77777777-7', RznSocRecep: 'X', DirRecep: 'Calle 1' },
    });
    expect(formFindings(doc, tipo)).toEqual([expect.objectContaining({ codigo: 'HED-3-312', detalle: 'falta GiroRecep, CmnaRecep' })]);
  });

  it('HED-3-312 does not apply to notes and boletas, where those fields are optional', () => {
    const bare = { RUTRecep: '77777777-7', RznSocRecep: 'X' };
    expect(formFindings(dte({ tipo: 61, receptor: bare }), 61)).toEqual([]);
    expect(formFindings(dte({ tipo: 39, receptor: bare }), 39)).toEqual([]);
  });

  it('HED-3-313: a guía without IndTraslado', () => {
    expect(codes(formFindings(dte({ tipo: 52 }), 52))).toEqual(['HED-3-313']);
    expect(formFindings(dte({ tipo: 52, idDoc: { IndTraslado: 5 } }), 52)).toEqual([]);
  });
});

describe('exports', () => {
  it('accept a factura de exportación with what the format makes mandatory', () => {
    expect(formFindings(export110({ servicio: undefined }), 110)).toEqual([]);
  });

  it('HED-3-314: an export whose receptor is not 55555555-5', () => {
    expect(codes(formFindings(export110({ rut: '77777777-7' }), 110))).toEqual(['HED-3-314']);
  });

  it('HED-2-804 (a reparo): customs data of goods, except what each IndServicio exempts', () => {
    const f = formFindings(export110({ transporte: aduana({ CodModVenta: '', CodPtoDesemb: '' }) }), 110);
    expect(f).toEqual([expect.objectContaining({ codigo: 'HED-2-804', detalle: 'falta CodModVenta, CodPtoDesemb' })]);
    // Services (3) need no sale clause; hotels (4) neither the route; neither needs units per line.
    const services = aduana({ CodModVenta: '', CodClauVenta: '', TotClauVenta: '' });
    expect(formFindings(export110({ servicio: '3', transporte: services, line: { IndExe: 1, NmbItem: 'S', MontoItem: 50 } }), 110)).toEqual(
      [],
    );
    expect(formFindings(export110({ servicio: '4', transporte: '', line: { IndExe: 1, NmbItem: 'S', MontoItem: 50 } }), 110)).toEqual([]);
    expect(formFindings(export110({ servicio: '3', transporte: '' }), 110)).toEqual([
      expect.objectContaining({ codigo: 'HED-2-804', detalle: 'falta CodViaTransp, CodPtoEmbarque, CodPtoDesemb' }),
    ]);
  });

  it('HED-2-804: a line of goods without quantity or unit, the receptor city, the payment terms text', () => {
    const line = { IndExe: 1, NmbItem: 'Vino', PrcItem: 50, MontoItem: 50 };
    expect(formFindings(export110({ line }), 110)).toEqual([
      expect.objectContaining({ detalle: 'falta QtyItem (línea 1), UnmdItem (línea 1)' }),
    ]);
    const noCity = dte({
      tipo: 110,
      idDoc: { IndServicio: 4, TermPagoCdg: 'FEM' },
      receptor: { RUTRecep: '55555555-5', RznSocRecep: 'G' },
    });
    expect(formFindings(noCity, 110)).toEqual([
      expect.objectContaining({ detalle: 'falta TermPagoGlosa, DirRecep, CiudadRecep, CiudadOrigen' }),
    ]);
  });

  it('asks of export notes only the foreign receptor', () => {
    const note = dte({ tipo: 112, receptor: { RUTRecep: '55555555-5', RznSocRecep: 'G' } });
    expect(formFindings(note, 112)).toEqual([]);
  });
});
