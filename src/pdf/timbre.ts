import bwipjs from 'bwip-js';

/**
 * The timbre electrónico as the SII prints it (REFERENCE §3.3): a PDF417 symbol at security
 * (error-correction) level 5 whose payload is the TED element's bytes exactly as signed —
 * flattened, ISO-8859-1. The bytes go in as bytes (`binarytext`: no UTF-8 conversion), so a reader
 * gives back the TED byte for byte, Ñ and all.
 *
 * bwip-js (a JavaScript build of BWIPP, the reference barcode writer) only encodes: it returns the
 * module matrix, which we draw as vector rectangles, so the symbol stays sharp at any zoom and on
 * any printer, and its size is ours to set (at least 2 × 5 cm on letter paper, the SII's minimum).
 */
export const PDF417_SECURITY_LEVEL = 5;
/** PDF417's own recommendation, and BWIPP's default: each row is three modules high. */
const ROW_HEIGHT = 3;

export interface Pdf417Symbol {
  /** Modules across (start and stop patterns included). */
  width: number;
  /** Module rows (each symbol row is ROW_HEIGHT of them). */
  height: number;
  /** Data columns and symbol rows: their product is the codeword capacity. */
  columns: number;
  rows: number;
  /** Dark areas, in modules: runs of dark modules merged across identical rows. */
  bars: { x: number; y: number; w: number; h: number }[];
}

interface RawMatrix {
  pixs: number[];
  pixx: number;
  pixy: number;
}

export function encodePdf417(payload: Buffer, columns: number): Pdf417Symbol {
  const raw = bwipjs.raw({
    bcid: 'pdf417',
    text: payload.toString('latin1'),
    binarytext: true,
    eclevel: PDF417_SECURITY_LEVEL,
    columns,
    rowmult: ROW_HEIGHT,
  } as Parameters<typeof bwipjs.raw>[0]) as RawMatrix[];
  const m = raw[0];
  if (!m || !Array.isArray(m.pixs) || !m.pixx) throw new Error('PDF417 encoder returned no matrix');
  // One entry per module of each symbol row; `pixy` counts module rows (rows × ROW_HEIGHT).
  const { pixs, pixx: width } = m;
  const rows = pixs.length / width;
  const bars: Pdf417Symbol['bars'] = [];
  const sameRow = (a: number, b: number) => {
    for (let x = 0; x < width; x++) if (pixs[a * width + x] !== pixs[b * width + x]) return false;
    return true;
  };
  for (let r = 0; r < rows;) {
    let next = r + 1;
    while (next < rows && sameRow(r, next)) next++;
    for (let x = 0; x < width;) {
      if (!pixs[r * width + x]) {
        x++;
        continue;
      }
      let end = x;
      while (end < width && pixs[r * width + end]) end++;
      bars.push({ x, y: r * ROW_HEIGHT, w: end - x, h: (next - r) * ROW_HEIGHT });
      x = end;
    }
    r = next;
  }
  // 17 modules per codeword; start (17), left and right indicators (17 each), stop (18).
  return { width, height: rows * ROW_HEIGHT, columns: (width - 69) / 17, rows, bars };
}

/** Where a symbol is drawn: its top-left corner and module size, in points. */
export interface DrawTarget {
  rect(x: number, y: number, w: number, h: number): unknown;
  fill(color: string): unknown;
}

export function drawPdf417(doc: DrawTarget, s: Pdf417Symbol, x: number, y: number, widthPt: number): { width: number; height: number } {
  const m = widthPt / s.width;
  for (const b of s.bars) doc.rect(x + b.x * m, y + b.y * m, b.w * m, b.h * m);
  doc.fill('#000000');
  return { width: widthPt, height: s.height * m };
}
