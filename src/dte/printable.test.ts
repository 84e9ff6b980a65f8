import fs from 'node:fs';
import { verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REAL_DTE_DIR } from '../../test/support/dte/sii-fixtures.ts';
import { createTestKit, sampleDteInput } from '../../test/support/dte/fixtures.ts';
import { parseCafBlock } from './caf.ts';
import { readPrintable, tedBytesOf } from './printable.ts';

const SAMPLES = REAL_DTE_DIR;

describe('readPrintable', () => {
  const kit = createTestKit();

  it('reads what a printed document shows from our signed XML, and the TED exactly as stamped', () => {
    const built = kit.build(sampleDteInput(61, 12, { formaPago: 2 }));
    const d = readPrintable(built.xml);
    expect(d).toMatchObject({
      tipoDte: 61,
      folio: 12,
      fechaEmision: '2026-03-02',
      formaPago: 2,
      emisor: { rut: '76192083-9', razonSocial: 'SASCO SpA', giro: 'Servicios integrales de informática', acteco: ['726000'] },
      receptor: { rut: '77777777-7', razonSocial: 'Comercial Ñandú & Cía. "Limitada"', comuna: 'Santiago' },
      referencias: [{ tipoDocRef: '33', folioRef: '1', fechaRef: '2026-03-01', codRef: '3', razonRef: 'Corrige montos' }],
      totales: { montoNeto: String(built.totals.montoNeto), iva: String(built.totals.iva), montoTotal: String(built.totals.montoTotal) },
    });
    expect(d.detalle.map((l) => [l.nombre, l.cantidad, l.precio, l.montoItem, l.indExe])).toEqual([
      ['Servicio de programación <backend>', '10', '35000', '350000', null],
      ['Licencia anual', '1.5', '12990.5', '19486', null],
      ['Capacitación exenta', '2', '45000', '90000', 1],
    ]);
    expect(d.tedBytes.equals(built.tedBytes)).toBe(true);
    expect(d.timestamp).toBe('2026-03-02T09:30:00');
  });

  it('reads boletas (their own element names) with the anonymous receptor', () => {
    const d = readPrintable(kit.build(sampleDteInput(39, 3)).xml);
    expect(d.emisor.razonSocial).toBe('SASCO SpA');
    expect(d.receptor.rut).toBe('66666666-6');
    expect(d.indServicio).toBe(3);
  });

  it("flattens the indented TED of a document from elsewhere (the SII's sample) to the bytes its FRMT signs", () => {
    const xml = fs.readFileSync(`${SAMPLES}/DTE--60910000-1--33--2336600.xml`);
    const d = readPrintable(xml);
    expect(d.tipoDte).toBe(33);
    expect(d.folio).toBe(2336600);
    const ted = d.tedBytes.toString('latin1');
    expect(ted).not.toMatch(/>\s+</);
    const dd = /<DD>.*<\/DD>/.exec(ted)![0];
    const frmt = /<FRMT algoritmo="SHA1withRSA">([^<]+)<\/FRMT>/.exec(ted)![1]!;
    const caf = parseCafBlock(/<CAF version="1.0">.*<\/CAF>/.exec(ted)![0]);
    expect(verify('sha1', Buffer.from(dd, 'latin1'), caf.publicKeyObject, Buffer.from(frmt, 'base64'))).toBe(true);
  });

  it('refuses what is not a DTE', () => {
    expect(() => readPrintable(Buffer.from('<EnvioDTE/>'))).toThrow(/not <DTE>/);
    expect(() => tedBytesOf(Buffer.from('<DTE><Documento ID="x"/></DTE>'))).toThrow(/no TED/);
  });
});
