/**
 * The timbre electrónico as the SII prints it (docs/sources.md §3.3): a PDF417 symbol at security
 * (error-correction) level 5 whose payload is the TED element's bytes exactly as signed —
 * flattened, ISO-8859-1. The bytes go in as bytes (`binarytext`: no UTF-8 conversion), so a reader
 * gives back the TED byte for byte, Ñ and all.
 *
 * bwip-js (a JavaScript build of BWIPP, the reference barcode writer) only encodes: it returns the
 * module matrix, which we draw as vector rectangles, so the symbol stays sharp at any zoom and on
 * any printer, and its size is ours to set (at least 2 × 5 cm on letter paper, the SII's minimum).
 * Its size follows from the module below and the number of data columns each layout chooses.
 *
 * This file is the symbol's geometry; the encoder, which loads bwip-js (2 MiB of source), is
 * timbre-encode.ts, imported only by the renderer (docs/performance.md, "Loaded on first use").
 */
export const PDF417_SECURITY_LEVEL = 5;
/** PDF417's own recommendation, and BWIPP's default: each row is three modules high. */
export const ROW_HEIGHT = 3;

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

/** Where a symbol is drawn: its top-left corner and module size, in points. */
export interface DrawTarget {
  rect(x: number, y: number, w: number, h: number): unknown;
  fill(color: string): unknown;
}

/** Points per millimetre (1 pt = 1/72 inch). */
const PT_PER_MM = 72 / 25.4;

/**
 * The module (narrowest bar or space): 0.254 mm, the classic 10 mil, which is a whole number of
 * printer dots at 203 dpi (thermal receipt heads: 2 dots), 300 dpi (3) and 600 dpi (6). A module
 * that falls between dots (0.22 mm was 1.76 dots at 203 dpi) prints as 1 or 2 dots at random, and a
 * printer that paints every dot a bar touches (PostScript's rule, no anti-aliasing) then closes the
 * one-module spaces: the symbol read back on screen but not from a simulated 203 or 300 dpi print.
 */
export const PDF417_MODULE_PT = 0.254 * PT_PER_MM;
/**
 * Bar width reduction for thermal receipt printers: each dark run drawn 0.07 mm narrower (half on
 * each side), about half a dot, as label printers do for dot gain. A printer that paints every dot
 * a bar touches widens it back to about its nominal width instead of eating the space beside it.
 * Measured with a PDF417 reader on pages rasterised without anti-aliasing: without it the roll's
 * timbre failed at 180 and 203 dpi; with it, it reads at 180, 203, 300 and 600 dpi and on screen
 * from 200 dpi. Letter paper goes to 300–1200 dpi office printers, where whole-dot modules read
 * without it, and on screen a reduction hurts (it failed at 200 dpi), so `carta` draws none.
 */
export const PDF417_ROLL_BAR_REDUCTION_PT = 0.07 * PT_PER_MM;

/** The printed width of a symbol of `columns` data columns, in points (17 modules each, plus 69). */
export const pdf417WidthPt = (columns: number): number => (columns * 17 + 69) * PDF417_MODULE_PT;

/** The printed size of a symbol, in points. */
export const pdf417Size = (s: Pdf417Symbol): { width: number; height: number } => ({
  width: s.width * PDF417_MODULE_PT,
  height: s.height * PDF417_MODULE_PT,
});

export function drawPdf417(doc: DrawTarget, s: Pdf417Symbol, x: number, y: number, barReductionPt = 0): { width: number; height: number } {
  const m = PDF417_MODULE_PT;
  const r = barReductionPt;
  for (const b of s.bars) doc.rect(x + b.x * m + r / 2, y + b.y * m, b.w * m - r, b.h * m);
  doc.fill('#000000');
  return pdf417Size(s);
}
