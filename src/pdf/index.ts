/**
 * The printed representation of DTEs (decisions §12): a pure renderer over pdfkit and bwip-js
 * (render.ts, with one layout per paper), the timbre's PDF417 (timbre.ts), Spanish typography
 * (format.ts), the names codes print as (names.ts), and the tenant logo's checks (logo.ts).
 * No database, no HTTP: the DTE module reads the document and the tenant and calls renderDtePdf.
 */
export { renderDtePdf } from './render.ts';
export type { PdfFormat } from './render.ts';
export { CEDIBLE_TYPES, isCedibleType, documentName } from './names.ts';
export { encodePdf417, PDF417_SECURITY_LEVEL } from './timbre.ts';
export { CARTA_TIMBRE_COLUMNS } from './layout-carta.ts';
export { ROLL_TIMBRE_COLUMNS } from './layout-80mm.ts';
export { prepareLogo, LogoError, LOGO_MAX_BYTES, LOGO_MIN_SIDE, LOGO_MAX_SIDE, LOGO_BOX } from './logo.ts';
