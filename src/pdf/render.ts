import PDFDocument from 'pdfkit';
import type { PrintableDte } from '../dte/index.ts';
import { pdfFonts } from './fonts.ts';
import { CARTA_TIMBRE_COLUMNS, layoutCarta, numberPages } from './layout-carta.ts';
import { layoutRoll, ROLL_TIMBRE_COLUMNS } from './layout-80mm.ts';
import { headerDimensions } from './logo.ts';
import { documentName, isCedibleType } from './names.ts';
import { encodePdf417 } from './timbre-encode.ts';
import type { Pdf417Symbol } from './timbre.ts';

/**
 * Renders the printed representation of a signed DTE (docs/decisions.md §12). Pure: the document (read
 * from its signed XML by the engine's `readPrintable`), the tenant's data that is not in the XML
 * (the SII unit, the resolution, the logo) and the options go in; the PDF bytes come out.
 */
export const PDF_FORMATS = ['carta', '80mm'] as const;
export type PdfFormat = (typeof PDF_FORMATS)[number];

export interface RenderPdfOptions {
  formato: PdfFormat;
  /** The cedible copy (33, 34, 43, 46, 52 only; the caller checks with isCedibleType). */
  cedible: boolean;
  /** Printed as "S.I.I. - {unidadSii}" under the red box. */
  unidadSii: string;
  /** The issuer's authorisation: "Res. {numero} de {year of fecha}". */
  resolucion: { numero: number; fecha: string };
  /** The tenant's logo, as stored (a canonical PNG, see logo.ts). */
  logo?: Buffer | null | undefined;
}

export interface LayoutAssets {
  logo: { png: Buffer; width: number; height: number } | null;
  symbol: Pdf417Symbol;
}

export async function renderDtePdf(dte: PrintableDte, opts: RenderPdfOptions): Promise<Buffer> {
  if (opts.cedible && !isCedibleType(dte.tipoDte)) throw new Error(`type ${dte.tipoDte} has no cedible copy`);
  const fonts = pdfFonts();
  const title = `${documentName(dte.tipoDte)} Nº ${dte.folio}${opts.cedible ? ' (cedible)' : ''}`;
  const doc = new PDFDocument({
    autoFirstPage: false,
    bufferPages: true,
    compress: true,
    info: { Title: title, Author: dte.emisor.razonSocial, Subject: `DTE ${dte.tipoDte}-${dte.folio}`, Creator: 'dte-service' },
    lang: 'es-CL',
    // No default font: pdfkit would load Helvetica's metrics for every document, and never use them.
    font: null,
  } as unknown as PDFKit.PDFDocumentOptions);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', fonts.regular as unknown as PDFKit.Mixins.PDFFontSource);
  doc.registerFont('bold', fonts.bold as unknown as PDFKit.Mixins.PDFFontSource);
  doc.font('regular');

  const dims = opts.logo ? headerDimensions(opts.logo, 'png') : null;
  const assets: LayoutAssets = {
    logo: opts.logo && dims ? { png: opts.logo, ...dims } : null,
    symbol: encodePdf417(dte.tedBytes, opts.formato === 'carta' ? CARTA_TIMBRE_COLUMNS : ROLL_TIMBRE_COLUMNS),
  };
  const context = { doc: dte, cedible: opts.cedible, unidadSii: opts.unidadSii, resolucion: opts.resolucion };
  if (opts.formato === 'carta') {
    layoutCarta(doc, context, assets);
    numberPages(doc);
  } else layoutRoll(doc, context, assets);
  doc.end();
  return done;
}
