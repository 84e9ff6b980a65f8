/**
 * The printed representation of DTEs (docs/decisions.md §12): a pure renderer over pdfkit and bwip-js
 * (render.ts, with one layout per paper), the timbre's PDF417 (timbre.ts, timbre-encode.ts),
 * Spanish typography (format.ts), the names codes print as (names.ts), and the tenant logo's
 * checks (logo.ts, logo-prepare.ts). No database, no HTTP: the DTE module reads the document and
 * the tenant and calls renderDtePdf.
 *
 * Loaded on first use (docs/performance.md, "Loaded on first use"): pdfkit, fontkit (with brotli's
 * dictionary), bwip-js and the fonts are several MiB of a server's memory that no other request
 * needs. jpeg-js and pngjs are never loaded by the server at all: a logo is decoded in a child process
 * (logo-isolated.ts). So the functions that use them load their modules on their first call
 * (one shared attempt; a failed one is tried again); the constants and checks below are plain
 * imports from files that import none of them (test/tooling/lazy-modules.test.ts).
 */
import type { PrintableDte } from '../dte/index.ts';
import { onFirstUse } from '../lib/lazy.ts';
import type { RenderPdfOptions } from './render.ts';
import type { Pdf417Symbol } from './timbre.ts';

export type { PdfFormat, RenderPdfOptions } from './render.ts';
export { CEDIBLE_TYPES, isCedibleType, documentName, printsCedibleCopy } from './names.ts';
export { PDF417_SECURITY_LEVEL } from './timbre.ts';
export { CARTA_TIMBRE_COLUMNS } from './layout-carta.ts';
export { ROLL_TIMBRE_COLUMNS } from './layout-80mm.ts';
export { LogoError, LOGO_MAX_BYTES, LOGO_MIN_SIDE, LOGO_MAX_SIDE, LOGO_BOX, LOGO_MAX_DECODED_BYTES } from './logo.ts';
export type { PreparedLogo } from './logo.ts';
export { createLogoPreparer, type LogoPreparer, type LogoPreparerOptions } from './logo-isolated.ts';

const renderer = onFirstUse(() => import('./render.ts'));
const encoder = onFirstUse(() => import('./timbre-encode.ts'));

/** The PDF of a signed DTE (render.ts). */
export async function renderDtePdf(dte: PrintableDte, opts: RenderPdfOptions): Promise<Buffer> {
  return (await renderer()).renderDtePdf(dte, opts);
}

/** The timbre's PDF417 symbol for a TED's bytes (timbre-encode.ts). */
export async function encodePdf417(payload: Buffer, columns: number): Promise<Pdf417Symbol> {
  return (await encoder()).encodePdf417(payload, columns);
}
