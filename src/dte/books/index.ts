/** The books (docs/certification.md, "Books"): LibroCompraVenta and LibroGuia, pure, signed like our envelopes. */
export type { BookEntry, BookHeader, BuiltBook, IvaTreatment } from './book-types.ts';
export { buildLibroCompraVenta, libroCompraVentaTotals, CODIGO_RETENCION_TOTAL } from './libro-cv.ts';
export type { LibroCompraVentaInput } from './libro-cv.ts';
export { creditoUsoComun } from './libro-cv-amounts.ts';
export type { TypeTotals } from './libro-cv-amounts.ts';
export { buildLibroGuia, guiaTotals, TPO_OPER_VENTA } from './libro-guia.ts';
export type { GuiaEntry, LibroGuiaInput, LibroGuiaTotals } from './libro-guia.ts';
