import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as fontkit from 'fontkit';

/**
 * The typeface of every printed document: DejaVu Sans Condensed (regular and bold), from the
 * `dejavu-fonts-ttf` package (DejaVu 2.37, the Bitstream Vera licence: free to embed). It covers
 * all of Latin-1 and beyond, so every character a DTE may carry prints as itself, and it is
 * embedded (subset) in each PDF, so the document looks the same on every reader and printer —
 * which the 14 standard PDF fonts, never embedded, cannot promise. The condensed width keeps
 * long item names and amounts on one line.
 *
 * The parsed fonts are kept for the life of the process and handed to every document: parsing a
 * font and building its shaping tables costs 10–30 ms, subsetting it per document about 2 ms.
 */
export interface PdfFonts {
  regular: fontkit.Font;
  bold: fontkit.Font;
}

let fonts: PdfFonts | undefined;

export function pdfFonts(): PdfFonts {
  if (!fonts) {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    const open = (file: string) => fontkit.create(fs.readFileSync(path.join(dir, file)));
    fonts = { regular: open('DejaVuSansCondensed.ttf'), bold: open('DejaVuSansCondensed-Bold.ttf') };
  }
  return fonts;
}
