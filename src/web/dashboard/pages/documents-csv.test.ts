import { describe, expect, it } from 'vitest';
import { CSV_BOM, CSV_COLUMNS, csvFilename, csvHeader, csvNumber, csvRow, csvText } from './documents-csv.ts';
import type { DteRecord } from './issuing.ts';

describe('documents CSV', () => {
  it('quotes separators, quotes and line breaks, doubling quotes', () => {
    expect(csvText('Comercial "El Sol"; Ltda.')).toBe('"Comercial ""El Sol""; Ltda."');
    expect(csvText('línea\nnueva')).toBe('"línea\nnueva"');
    expect(csvText('a,b')).toBe('"a,b"');
    expect(csvText('Ñandú SpA')).toBe('Ñandú SpA');
    expect(csvText(null)).toBe('');
  });

  it('neutralises cells a spreadsheet would run as formulas', () => {
    for (const evil of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'])
      expect(csvText(evil).replace(/^"/, '').startsWith("'")).toBe(true);
    expect(csvText('=1;2')).toBe(`"'=1;2"`);
    expect(csvText('Empresa = buena')).toBe('Empresa = buena');
  });

  it('writes amounts as plain integers, never with separators or exponents', () => {
    expect(csvNumber(1234567)).toBe('1234567');
    expect(csvNumber(1e21)).toBe('1000000000000000000000');
    expect(csvNumber(0)).toBe('0');
    expect(csvNumber(120.25)).toBe('120.25');
    expect(csvNumber(null)).toBe('');
  });

  it('has a stable header and one CRLF line per document', () => {
    expect(CSV_BOM).toBe('\uFEFF');
    expect(csvHeader()).toBe(`${CSV_COLUMNS.join(';')}\r\n`);
    const d = {
      id: '0b9d3c36-9a4e-4f43-8a2f-8f1d7e6b7c51',
      tipoDte: 33,
      folio: 42,
      fechaEmision: '2026-11-20',
      receptor: { rut: '77777777-7', razonSocial: '=cmd|"/c calc"!A0' },
      montoNeto: 100000,
      montoExento: 0,
      iva: 19000,
      montoTotal: 119000,
      exportacion: null,
      status: 'accepted',
      sii: { estado: 'DOK', glosa: null },
      trackId: '4000012',
      createdAt: '2026-11-20T12:00:00.000Z',
    } as unknown as DteRecord;
    const row = csvRow(d);
    expect(row.endsWith('\r\n')).toBe(true);
    const cells = row.slice(0, -2).split(';');
    expect(cells).toHaveLength(CSV_COLUMNS.length);
    expect(cells.slice(0, 5)).toEqual(['0b9d3c36-9a4e-4f43-8a2f-8f1d7e6b7c51', '33', '42', '2026-11-20', '77777777-7']);
    expect(cells[5]).toBe(`"'=cmd|""/c calc""!A0"`);
    expect(cells.slice(6, 12)).toEqual(['100000', '0', '19000', '119000', 'PESO CL', 'accepted']);
  });

  it('names the file after the company RUT and the day', () => {
    expect(csvFilename('76.123.456-K', '2026-11-30')).toBe('documentos-76123456-K-2026-11-30.csv');
    expect(csvFilename('76"123;456-7', '2026-11-30')).toBe('documentos-761234567-2026-11-30.csv'.replace('761234567', '76123456-7'));
  });
});
