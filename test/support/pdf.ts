import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

/**
 * Reading printed documents back the way a person or a scanner would, with tools that share no
 * code with the renderer: poppler's pdftoppm (pages to images) and pdftotext (Debian's
 * poppler-utils, installed by .ci/run), and ZXing's PDF417 reader compiled to WebAssembly
 * (zxing-wasm).
 */
const INSTALL_HINT = 'apt-get install -y poppler-utils';

function run(bin: string, args: string[]): Buffer {
  const r = spawnSync(bin, args, { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${bin} is not installed: ${INSTALL_HINT}`);
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${r.stderr?.toString() ?? r.error}`);
  return r.stdout;
}

function withPdfFile<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, pdf);
    return fn(file, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every page as PNG at `dpi` (pdftoppm). `printer: true` renders as a printer does: black or white
 * dots only, every dot a shape touches painted (no anti-aliasing).
 */
export function pdfPages(pdf: Buffer, dpi = 200, o: { printer?: boolean } = {}): Buffer[] {
  return withPdfFile(pdf, (file, dir) => {
    const printer = o.printer ? ['-mono', '-aa', 'no', '-aaVector', 'no'] : [];
    run('pdftoppm', ['-r', String(dpi), ...printer, '-png', file, path.join(dir, 'page')]);
    return fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('page') && f.endsWith('.png'))
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f)));
  });
}

/**
 * The text of the document (pdftotext): laid out as on the page, or with `raw` in the order it
 * was drawn with white space collapsed, so a phrase wrapped over two lines reads as one.
 */
export function pdfText(pdf: Buffer, o: { raw?: boolean } = {}): string {
  const args = [o.raw ? '-raw' : '-layout', '-enc', 'UTF-8'];
  const text = withPdfFile(pdf, (file) => run('pdftotext', [...args, file, '-']).toString('utf8'));
  return o.raw ? text.replace(/\s+/g, ' ') : text;
}

/** pdfinfo's fields (Pages, Page size, …). */
export function pdfInfo(pdf: Buffer): Record<string, string> {
  const out = withPdfFile(pdf, (file) => run('pdfinfo', [file]).toString('utf8'));
  return Object.fromEntries(
    out.split('\n').flatMap((l) => {
      const m = /^([^:]+):\s*(.*)$/.exec(l);
      return m ? [[m[1]!.trim(), m[2]!.trim()]] : [];
    }),
  );
}

/** The fonts the PDF uses (pdffonts): name and whether it is embedded. */
export function pdfFonts(pdf: Buffer): { name: string; embedded: boolean }[] {
  const out = withPdfFile(pdf, (file) => run('pdffonts', [file]).toString('utf8'));
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const t = l.trim().split(/\s+/);
      return { name: t[0]!, embedded: t[t.length - 5] === 'yes' };
    });
}

/** The images the PDF embeds (pdfimages -list), one row each. */
export function pdfImages(pdf: Buffer): string[] {
  const out = withPdfFile(pdf, (file) => run('pdfimages', ['-list', file]).toString('utf8'));
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim());
}

let zxingReady: Promise<unknown> | undefined;
const zxing = () => {
  const wasm = fs.readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
  // The wasm binary from the installed package: no download at run time.
  zxingReady ??= prepareZXingModule({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
    fireImmediately: true,
  });
  return zxingReady;
};

export interface DecodedPdf417 {
  bytes: Buffer;
  /** ZXing's error-correction figure: EC codewords as a share of the symbol's codewords ("10%"). */
  ecLevel: string;
  /** Corners in the image, pixels. */
  position: { topLeft: { x: number; y: number }; topRight: { x: number; y: number }; bottomLeft: { x: number; y: number } };
}

/** Every PDF417 symbol ZXing finds in a PNG image. */
export async function readPdf417(png: Buffer): Promise<DecodedPdf417[]> {
  await zxing();
  const found = await readBarcodes(new Uint8Array(png), { formats: ['PDF417'], tryHarder: true, maxNumberOfSymbols: 4 });
  return found.filter((r) => r.isValid).map((r) => ({ bytes: Buffer.from(r.bytes), ecLevel: r.ecLevel, position: r.position }));
}

/** Where page images worth looking at are kept (gitignored). */
export function keepArtifact(name: string, data: Buffer): string {
  const dir = path.resolve('test-artifacts', 'pdf');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
}
