import { fileURLToPath } from 'node:url';
import { readPrintable } from '../src/dte/index.ts';
import { renderDtePdf, type PdfFormat } from '../src/pdf/index.ts';
import { createTestKit, sampleDteInput } from '../test/support/dte/fixtures.ts';

/**
 * The printed document on one core: what GET …/dte/{dteId}/pdf does after its database read —
 * parse the signed XML, encode the PDF417 timbre, lay out and write the PDF with its embedded
 * font subset — in a loop on this one thread. A factura (33, 3 lines, cedible copy) on letter
 * paper and a boleta (39) on the 80 mm roll.
 */
export interface PdfBenchResult {
  carta: { pdfsPerSecond: number; meanMs: number; bytes: number };
  roll: { pdfsPerSecond: number; meanMs: number; bytes: number };
  notes: string;
}

async function measure(seconds: number, fn: () => Promise<Buffer>): Promise<{ pdfsPerSecond: number; meanMs: number; bytes: number }> {
  let bytes = 0;
  for (let i = 0; i < 10; i++) bytes = (await fn()).length; // warm-up: JIT, font shaping caches
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let n = 0;
  while (performance.now() < deadline) {
    await fn();
    n++;
  }
  const elapsed = performance.now() - start;
  return { pdfsPerSecond: Math.round((n / elapsed) * 1000 * 10) / 10, meanMs: Math.round((elapsed / n) * 100) / 100, bytes };
}

export async function runPdfBench(opts: { seconds?: number } = {}): Promise<PdfBenchResult> {
  const seconds = opts.seconds ?? 3;
  const kit = createTestKit();
  const factura = kit.build(sampleDteInput(33, 1)).xml;
  const boleta = kit.build(sampleDteInput(39, 1)).xml;
  const options = (formato: PdfFormat, cedible: boolean) => ({
    formato,
    cedible,
    unidadSii: 'Santiago Oriente',
    resolucion: { numero: 80, fecha: '2014-08-22' },
  });
  const carta = await measure(seconds, () => renderDtePdf(readPrintable(factura), options('carta', true)));
  const roll = await measure(seconds, () => renderDtePdf(readPrintable(boleta), options('80mm', false)));
  return { carta, roll, notes: `${seconds}s per format, one thread, node ${process.version}` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await runPdfBench({ seconds: Number(process.env.BENCH_SECONDS ?? 3) });
  console.log(`factura 33, carta, cedible: ${r.carta.pdfsPerSecond} PDFs/s (${r.carta.meanMs} ms each, ${r.carta.bytes} bytes)`);
  console.log(`boleta 39, 80 mm:           ${r.roll.pdfsPerSecond} PDFs/s (${r.roll.meanMs} ms each, ${r.roll.bytes} bytes)`);
  console.log(r.notes);
}
