/**
 * A thin layer over pdfkit for the layouts: text measured and drawn at explicit coordinates (no
 * cursor state), in the two embedded weights. A `dry` painter measures without drawing, so a
 * layout can run once to learn its height (the 80 mm roll's page is exactly as long as its
 * content) and once more to draw.
 */
import { drawPdf417, pdf417Size, type Pdf417Symbol } from './timbre.ts';

export const MM = 72 / 25.4;
export const RED = '#c8102e';
export const INK = '#000000';
export const GREY = '#555555';
export const RULE = '#999999';
export const SHADE = '#ececec';

export interface TextStyle {
  size?: number;
  bold?: boolean;
  align?: 'left' | 'center' | 'right';
  color?: string;
}

export class Painter {
  readonly doc: PDFKit.PDFDocument;
  readonly dry: boolean;

  constructor(doc: PDFKit.PDFDocument, dry: boolean) {
    this.doc = doc;
    this.dry = dry;
  }

  private use(s: TextStyle): void {
    this.doc.font(s.bold ? 'bold' : 'regular').fontSize(s.size ?? 8.5);
  }

  /** Height of `text` wrapped in `width`. */
  measure(text: string, width: number, s: TextStyle = {}): number {
    if (!text) return 0;
    this.use(s);
    return this.doc.heightOfString(text, { width, lineGap: 0 });
  }

  widthOf(text: string, s: TextStyle = {}): number {
    this.use(s);
    return this.doc.widthOfString(text);
  }

  /** Draws `text` wrapped in `width` with its top at `y`; returns its height. */
  text(text: string, x: number, y: number, width: number, s: TextStyle = {}): number {
    if (!text) return 0;
    const h = this.measure(text, width, s);
    if (!this.dry) {
      this.doc.fillColor(s.color ?? INK);
      this.doc.text(text, x, y, { width, align: s.align ?? 'left', lineGap: 0 });
    }
    return h;
  }

  box(x: number, y: number, w: number, h: number, o: { stroke?: string; lineWidth?: number; fill?: string; dash?: number } = {}): void {
    if (this.dry) return;
    const d = this.doc;
    d.save();
    if (o.fill) d.rect(x, y, w, h).fill(o.fill);
    if (o.stroke) {
      d.lineWidth(o.lineWidth ?? 0.5);
      if (o.dash) d.dash(o.dash, { space: o.dash });
      d.rect(x, y, w, h).stroke(o.stroke);
    }
    d.restore();
  }

  line(x1: number, y1: number, x2: number, y2: number, o: { color?: string; width?: number; dash?: number } = {}): void {
    if (this.dry) return;
    const d = this.doc;
    d.save().lineWidth(o.width ?? 0.5);
    if (o.dash) d.dash(o.dash, { space: o.dash });
    d.moveTo(x1, y1)
      .lineTo(x2, y2)
      .stroke(o.color ?? RULE);
    d.restore();
  }

  /** Draws an image scaled into `size` (computed with fitSize, so the layout knows it ahead). */
  /** The timbre at (x, y), drawn unless measuring; its printed size either way. */
  pdf417(s: Pdf417Symbol, x: number, y: number, barReductionPt = 0): { width: number; height: number } {
    return this.dry ? pdf417Size(s) : drawPdf417(this.doc, s, x, y, barReductionPt);
  }

  image(png: Buffer, x: number, y: number, size: [number, number]): void {
    if (this.dry) return;
    this.doc.image(png, x, y, { width: size[0], height: size[1] });
  }
}

/** A logo's drawn size when fitted in a box (pdfkit's `fit`, computed ahead to lay out around it). */
export function fitSize(px: { width: number; height: number }, box: [number, number]): [number, number] {
  const scale = Math.min(box[0] / px.width, box[1] / px.height);
  return [px.width * scale, px.height * scale];
}
