import { verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readPrintable, SUPPORTED_TIPOS_DTE, type BuiltDte, type TipoDte } from '../../src/dte/index.ts';
import {
  CARTA_TIMBRE_COLUMNS,
  documentName,
  encodePdf417,
  isCedibleType,
  PDF417_SECURITY_LEVEL,
  renderDtePdf,
  ROLL_TIMBRE_COLUMNS,
  type PdfFormat,
} from '../../src/pdf/index.ts';
import { createTestKit, sampleDteInput, type TestKit } from '../support/dte/fixtures.ts';
import { keepArtifact, pdfFonts, pdfInfo, pdfPages, pdfText, readPdf417, type DecodedPdf417 } from '../support/pdf.ts';
import { flatXml } from '../support/dte/lines.ts';

/**
 * The printed document read back by tools that share nothing with the renderer: every supported
 * type, in both formats (and the cedible copy where there is one), rendered once, turned into
 * page images by poppler's pdftoppm and its barcode read by ZXing (zxing-wasm). The barcode must
 * give back the TED of the signed XML byte for byte — and those bytes must verify with the CAF's
 * key, so they are exactly what was stamped. pdftotext checks what a reader sees.
 */
const OPTS = { unidadSii: 'Santiago Oriente', resolucion: { numero: 80, fecha: '2014-08-22' } };
// pdftoppm resolutions: a laser printer's for letter paper, a thermal head's (203 dpi) for the roll.
const DPI: Record<PdfFormat, number> = { carta: 200, '80mm': 203 };
const MM_PER_INCH = 25.4;

interface Rendered {
  tipo: TipoDte;
  formato: PdfFormat;
  cedible: boolean;
  built: BuiltDte;
  pdf: Buffer;
  pages: Buffer[];
  /** pdftotext -layout. */
  text: string;
  /** pdftotext -raw, white space collapsed. */
  raw: string;
  /** Every PDF417 symbol ZXing found on the pages. */
  symbols: DecodedPdf417[];
}

const variants = SUPPORTED_TIPOS_DTE.flatMap((tipo) =>
  (['carta', '80mm'] as const).flatMap((formato) =>
    [false, ...(isCedibleType(tipo) ? [true] : [])].map((cedible) => ({ tipo, formato, cedible })),
  ),
);
const label = (r: { tipo: number; formato: string; cedible: boolean }) => `${r.tipo} ${r.formato}${r.cedible ? ' cedible' : ''}`;

describe('printed document (PDF): timbre and text read back', () => {
  let kit: TestKit;
  const rendered: Rendered[] = [];
  const builtByType = new Map<TipoDte, BuiltDte>();

  beforeAll(async () => {
    kit = createTestKit();
    for (const tipo of SUPPORTED_TIPOS_DTE) builtByType.set(tipo, kit.build(sampleDteInput(tipo, 471)));
    for (const v of variants) {
      const built = builtByType.get(v.tipo)!;
      const pdf = await renderDtePdf(readPrintable(built.xml), { ...OPTS, formato: v.formato, cedible: v.cedible });
      const pages = pdfPages(pdf, DPI[v.formato]);
      const symbols = (await Promise.all(pages.map((p) => readPdf417(p)))).flat();
      rendered.push({ ...v, built, pdf, pages, text: pdfText(pdf), raw: pdfText(pdf, { raw: true }), symbols });
    }
    // Page images worth looking at (test-artifacts/ is gitignored).
    const keep = (tipo: number, formato: PdfFormat, cedible: boolean, name: string) => {
      const r = rendered.find((x) => x.tipo === tipo && x.formato === formato && x.cedible === cedible)!;
      keepArtifact(`${name}.pdf`, r.pdf);
      r.pages.forEach((png, i) => keepArtifact(`${name}-page${i + 1}.png`, png));
    };
    keep(33, 'carta', true, 'factura-33-carta-cedible');
    keep(39, '80mm', false, 'boleta-39-80mm');
    keep(52, 'carta', true, 'guia-52-carta-cedible');
  });

  it('renders every supported type in both formats, cedible where the type has it', () => {
    for (const r of rendered) expect(r.pdf.subarray(0, 5).toString('latin1'), label(r)).toBe('%PDF-');
  });

  it('the timbre reads back as the TED of the signed XML, byte for byte, and those bytes verify with the CAF key', async () => {
    for (const r of rendered) {
      expect(r.symbols.length, label(r)).toBe(1);
      const bytes = r.symbols[0]!.bytes;
      // The TED element of the signed XML, found in the stored bytes by a plain byte search, in the
      // form the SII reads it: flattened (the document carries it one element per line).
      const xml = r.built.xml;
      const start = xml.indexOf('<TED version="1.0">');
      const end = xml.indexOf('</TED>', start) + '</TED>'.length;
      expect(start, label(r)).toBeGreaterThan(0);
      expect(bytes.toString('latin1'), label(r)).toBe(flatXml(xml.subarray(start, end)));
      expect(bytes.equals(r.built.tedBytes), label(r)).toBe(true);
      // What the barcode carries is what the CAF key signed: FRMT over the flattened DD.
      const text = bytes.toString('latin1');
      const dd = /<DD>.*<\/DD>/.exec(text)![0];
      const frmt = /<FRMT algoritmo="SHA1withRSA">([^<]+)<\/FRMT>/.exec(text)![1]!;
      const caf = kit.cafs[r.tipo];
      expect(verify('sha1', Buffer.from(dd, 'latin1'), caf.publicKeyObject, Buffer.from(frmt, 'base64')), label(r)).toBe(true);
    }
  });

  it('the barcode is PDF417 at security level 5, at least 5 × 2 cm on letter paper', async () => {
    for (const r of rendered) {
      const [symbol] = r.symbols;
      // ZXing reports the error-correction codewords as a share of all codewords (floored);
      // level 5 is 2^(5+1) = 64 of them, and the symbol's size gives the total.
      const s = await encodePdf417(r.built.tedBytes, r.formato === 'carta' ? CARTA_TIMBRE_COLUMNS : ROLL_TIMBRE_COLUMNS);
      const ecCodewords = 2 ** (PDF417_SECURITY_LEVEL + 1);
      expect(parseInt(symbol!.ecLevel, 10), label(r)).toBe(Math.floor((100 * ecCodewords) / (s.rows * s.columns)));
      const mm = (px: number) => (px / DPI[r.formato]) * MM_PER_INCH;
      const width = mm(symbol!.position.topRight.x - symbol!.position.topLeft.x);
      const height = mm(symbol!.position.bottomLeft.y - symbol!.position.topLeft.y);
      if (r.formato === 'carta') {
        expect(width, label(r)).toBeGreaterThanOrEqual(50);
        expect(height, label(r)).toBeGreaterThanOrEqual(20);
        // At least 2 cm from the left edge of the page (docs/sources.md §3.3).
        expect(mm(symbol!.position.topLeft.x), label(r)).toBeGreaterThanOrEqual(19.5);
      } else {
        expect(width, label(r)).toBeGreaterThanOrEqual(60);
        expect(width, label(r)).toBeLessThanOrEqual(72);
      }
    }
  });

  it("the timbre survives a printer: rendered with black-or-white dots at the printers' resolutions, it still reads back", async () => {
    // A printer paints every dot a bar touches; a module that is not a whole number of dots then
    // closes the narrow spaces (0.22 mm modules failed at 203 and 300 dpi). Thermal receipt heads
    // print at 180 or 203 dpi, office printers at 300 or 600.
    const printerDpi: Record<PdfFormat, number[]> = { carta: [300, 600], '80mm': [180, 203, 300] };
    for (const r of rendered.filter((x) => (x.tipo === 33 || x.tipo === 39) && !x.cedible)) {
      for (const dpi of printerDpi[r.formato]) {
        const found = await readPdf417(pdfPages(r.pdf, dpi, { printer: true }).at(-1)!);
        expect(found.length, `${label(r)} at ${dpi} dpi`).toBe(1);
        expect(found[0]!.bytes.equals(r.built.tedBytes), `${label(r)} at ${dpi} dpi`).toBe(true);
      }
    }
  });

  it('prints the folio, both RUTs, the document name in full, the totals as amounts, the dates and the timbre captions', () => {
    for (const r of rendered) {
      const t = r.text;
      const totals = r.built.totals;
      // Dots for thousands; an export's amounts are in its currency, printed without the peso sign.
      const exportacion = r.tipo >= 110;
      const amount = (n: number) => `${exportacion ? '' : '$ '}${n.toLocaleString('de-DE', { maximumFractionDigits: 4 })}`;
      expect(r.raw, label(r)).toContain(documentName(r.tipo));
      expect(t, label(r)).toContain('Nº 471');
      expect(t, label(r)).toContain('R.U.T.: 76.192.083-9');
      // The sample boleta 39 is anonymous; the exports' receptor is foreign.
      if (r.tipo !== 39) expect(t, label(r)).toContain(exportacion ? '55.555.555-5' : '77.777.777-7');
      expect(t, label(r)).toContain(amount(totals.montoTotal));
      expect(totals.montoTotal, label(r)).toBeGreaterThan(999); // so the amount above really has a dot
      if (totals.montoNeto) expect(t, label(r)).toContain(amount(totals.montoNeto));
      if (totals.iva) expect(t, label(r)).toContain(amount(totals.iva));
      if (totals.montoExento) expect(t, label(r)).toContain(amount(totals.montoExento));
      expect(t, label(r)).toContain('02-03-2026');
      expect(t, label(r)).toContain('S.I.I. - SANTIAGO ORIENTE');
      expect(t, label(r)).toContain('Timbre Electrónico SII');
      expect(t, label(r)).toContain('Res. 80 de 2014');
      expect(t, label(r)).toContain('Verifique documento: www.sii.cl');
      if (r.cedible) {
        expect(t, label(r)).toContain('ACUSE DE RECIBO');
        expect(r.raw, label(r)).toContain(
          'de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).',
        );
        for (const f of ['Nombre:', 'R.U.T.:', 'Fecha:', 'Recinto:', 'Firma:']) expect(t, label(r)).toContain(f);
        expect(t, label(r)).toContain(r.tipo === 52 ? 'CEDIBLE CON SU FACTURA' : 'CEDIBLE');
      } else {
        expect(t, label(r)).not.toContain('CEDIBLE');
        expect(t, label(r)).not.toContain('ACUSE DE RECIBO');
      }
    }
  });

  it("prints a liquidación-factura's commissions as subtracted, and an export's amounts in its currency", () => {
    const l = rendered.find((r) => r.tipo === 43 && r.formato === 'carta' && !r.cedible)!.text;
    expect(l).toMatch(/Comisiones \(neto\)\s+-\$ 17\.500/);
    expect(l).toMatch(/IVA comisiones\s+-\$ 3\.325/);
    expect(l).not.toContain('Comisiones (exento)'); // zero: left out
    expect(l).toMatch(/TOTAL\s+\$ 415\.675/);
    const e = rendered.find((r) => r.tipo === 110 && r.formato === 'carta' && !r.cedible)!.text;
    expect(e).toMatch(/TOTAL \(DOLAR USA\)\s+1\.302,4999/);
    expect(e).toMatch(/Total en PESO CL\s+1\.237\.701/);
  });

  it('prints the lines, the references with their reason, and Spanish numbers', () => {
    const f = rendered.find((r) => r.tipo === 33 && r.formato === 'carta' && !r.cedible)!.text;
    expect(f).toContain('Servicio de programación <backend>');
    expect(f).toContain('$ 12.990,5'); // a unit price with decimals
    expect(f).toContain('1,5');
    expect(f).toContain('Comercial Ñandú & Cía. "Limitada"');
    const nc = rendered.find((r) => r.tipo === 61 && r.formato === 'carta')!.text;
    expect(nc).toContain('Factura electrónica');
    expect(nc).toContain('Corrige montos');
    expect(nc).toContain('01-03-2026');
    const guia = rendered.find((r) => r.tipo === 52 && r.formato === 'carta' && !r.cedible)!.text;
    expect(guia).toContain('Operación constituye venta');
  });

  it('embeds its fonts and uses the paper it says', () => {
    for (const r of rendered.filter((x) => x.tipo === 33)) {
      const fonts = pdfFonts(r.pdf);
      expect(fonts.length, label(r)).toBeGreaterThan(0);
      for (const f of fonts) expect(f, label(r)).toMatchObject({ embedded: true, name: expect.stringMatching(/\+DejaVuSansCondensed/) });
      const size = pdfInfo(r.pdf)['Page size']!;
      if (r.formato === 'carta') expect(size).toMatch(/^612 x 792 pts/);
      else expect(size).toMatch(/^226\.77\d* x \d+(\.\d+)? pts/);
    }
  });

  it('prints every Latin-1 character as itself', async () => {
    const latin1 = 'ÁÉÍÓÚÜÑ áéíóúüñ ¡¿ ÀÈÌÒÙ àèìòù ÂÊÎÔÛ âêîôû ÇçÃÕãõ ß ÿ Ææ Øø Åå «» ° ª º ± µ ½ ¼ ¾ © ® § ¶ £ ¥ ¢ × ÷';
    const built = kit.build(sampleDteInput(33, 9, { detalle: [{ nombre: latin1.slice(0, 80), cantidad: 1, precioUnitario: 1000 }] }));
    const text = pdfText(await renderDtePdf(readPrintable(built.xml), { ...OPTS, formato: 'carta', cedible: false }));
    expect(text).toContain(latin1.slice(0, 80));
  });

  it('continues long documents on more pages, with the timbre on the last one', async () => {
    const detalle = Array.from({ length: 60 }, (_, i) => ({ nombre: `Artículo número ${i + 1}`, cantidad: 1, precioUnitario: 1000 + i }));
    const built = kit.build(sampleDteInput(33, 10, { detalle }));
    const pdf = await renderDtePdf(readPrintable(built.xml), { ...OPTS, formato: 'carta', cedible: true });
    const pages = pdfPages(pdf, 200);
    expect(pages.length).toBeGreaterThan(1);
    const found = await Promise.all(pages.map((p) => readPdf417(p)));
    expect(found.slice(0, -1).every((f) => f.length === 0)).toBe(true);
    expect(found.at(-1)![0]!.bytes.equals(built.tedBytes)).toBe(true);
    const text = pdfText(pdf);
    expect(text).toContain(`Página 1 de ${pages.length}`);
    expect(text).toContain('Artículo número 60');
    expect(text).toContain('(continuación)');
    keepArtifact('factura-33-60-lines-carta.pdf', pdf);
  });

  it('refuses a cedible copy of a type that has none', async () => {
    const boleta = readPrintable(builtByType.get(39)!.xml);
    await expect(renderDtePdf(boleta, { ...OPTS, formato: 'carta', cedible: true })).rejects.toThrow(/cedible/);
  });
});
