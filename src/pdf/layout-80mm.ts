import {
  ACUSE_FIELDS,
  ACUSE_LEGAL,
  ACUSE_TITLE,
  boxLines,
  cedibleMark,
  documentRows,
  issuerLines,
  lineCells,
  montoBrutoNote,
  receptorRows,
  referenceCells,
  siiLine,
  timbreCaptions,
  totalRows,
  transporteRows,
  type RenderContext,
  type Row,
} from './content.ts';
import { fitSize, GREY, MM, Painter, RED, type TextStyle } from './painter.ts';
import { PDF417_ROLL_BAR_REDUCTION_PT, pdf417WidthPt } from './timbre.ts';
import type { LayoutAssets } from './render.ts';

/**
 * The 80 mm roll of receipt printers and points of sale: 72 mm printable, one column, and a page
 * exactly as long as its content (the layout runs once to measure, once to draw). The timbre has
 * 12 data columns of 0.254 mm modules (two dots of a 203 dpi thermal head, timbre.ts): 69.3 mm
 * across, the most that fits the 72 mm printable width (13 columns would be 73.7 mm), and 4–5 cm
 * high.
 */
const ROLL_WIDTH = 80 * MM;
const M = 4 * MM;
const W = ROLL_WIDTH - 2 * M;
export const ROLL_TIMBRE_COLUMNS = 12;
const ROLL_TIMBRE_WIDTH = pdf417WidthPt(ROLL_TIMBRE_COLUMNS);

function pairs(p: Painter, list: Row[], y: number, s: TextStyle = { size: 7.5 }): number {
  for (const [label, value] of list) {
    const lw = p.widthOf(`${label}: `, { ...s, bold: true });
    if (lw < W * 0.45) {
      p.text(`${label}:`, M, y, lw, { ...s, bold: true });
      y += p.text(value, M + lw, y, W - lw, s) + 0.5 * MM;
    } else {
      y += p.text(`${label}:`, M, y, W, { ...s, bold: true });
      y += p.text(value, M, y, W, s) + 0.5 * MM;
    }
  }
  return y;
}

function rule(p: Painter, y: number): number {
  p.line(M, y + 1.2 * MM, M + W, y + 1.2 * MM, { color: '#000000', dash: 1.5 });
  return y + 2.4 * MM;
}

/** Draws (or, with a dry painter, measures) the whole receipt from `y`; returns where it ends. */
function receipt(p: Painter, c: RenderContext, a: LayoutAssets, y: number): number {
  const d = c.doc;
  if (a.logo) {
    const [lw, lh] = fitSize(a.logo, [50 * MM, 20 * MM]);
    p.image(a.logo.png, M + (W - lw) / 2, y, [lw, lh]);
    y += lh + 2 * MM;
  }
  y += p.text(d.emisor.razonSocial, M, y, W, { size: 9.5, bold: true, align: 'center' }) + 0.8 * MM;
  for (const l of issuerLines(d)) y += p.text(l, M, y, W, { size: 7.5, align: 'center' }) + 0.3 * MM;
  y += 2 * MM;

  const b = boxLines(d);
  const st: TextStyle = { size: 10, bold: true, align: 'center', color: RED };
  const inner = W - 6 * MM;
  const boxH = 2.5 * MM + p.measure(b.rut, inner, st) + p.measure(b.name, inner, st) + p.measure(b.folio, inner, st) + 2 * MM + 2.5 * MM;
  p.box(M, y, W, boxH, { stroke: RED, lineWidth: 1.5 });
  let by = y + 2.5 * MM;
  by += p.text(b.rut, M + 3 * MM, by, inner, st) + 1 * MM;
  by += p.text(b.name, M + 3 * MM, by, inner, st) + 1 * MM;
  p.text(b.folio, M + 3 * MM, by, inner, st);
  y += boxH + 1.2 * MM;
  y += p.text(siiLine(c), M, y, W, { size: 8.5, bold: true, align: 'center', color: RED }) + 2 * MM;

  y = pairs(p, documentRows(d), y);
  const rec = receptorRows(d);
  if (rec.length) y = pairs(p, rec, rule(p, y));
  const transport = transporteRows(d);
  if (transport.length) {
    y = rule(p, y);
    y = pairs(p, transport, y + p.text('Transporte', M, y, W, { size: 7.5, bold: true }));
  }
  y = rule(p, y);

  for (const l of d.detalle) {
    const cells = lineCells(d, l);
    y += p.text([cells.codigo, cells.nombre].filter(Boolean).join(' '), M, y, W, { size: 8 });
    if (cells.nota) y += p.text(cells.nota, M, y, W, { size: 6.8, color: GREY });
    const qty = [cells.cantidad, cells.unidad].filter(Boolean).join(' ');
    const left = [qty && cells.precio ? `${qty} x ${cells.precio}` : qty, cells.ajuste].filter(Boolean).join('  ');
    const valueW = p.widthOf(cells.monto, { size: 8 }) + 1 * MM;
    const lh = p.text(left, M + 2 * MM, y, W - 2 * MM - valueW, { size: 7.5, color: GREY });
    const vh = p.text(cells.monto, M + W - valueW, y, valueW, { size: 8, align: 'right' });
    y += Math.max(lh, vh) + 1.2 * MM;
  }
  y = rule(p, y);

  for (const r of totalRows(d)) {
    const s: TextStyle = r.strong ? { size: 10, bold: true } : { size: 8 };
    const vw = p.widthOf(r.value, s) + 1 * MM;
    const lh = p.text(r.label, M, y, W - vw, s);
    p.text(r.value, M + W - vw, y, vw, { ...s, align: 'right' });
    y += lh + 0.6 * MM;
  }
  const note = montoBrutoNote(d);
  if (note) y += p.text(note, M, y, W, { size: 7, color: GREY });

  const refs = referenceCells(d);
  if (refs.length) {
    y = rule(p, y);
    y += p.text('Referencias', M, y, W, { size: 7.5, bold: true }) + 0.5 * MM;
    for (const r of refs)
      y += p.text([`${r.tipo} Nº ${r.folio}`, r.fecha, r.razon].filter(Boolean).join(' · '), M, y, W, { size: 7.2 }) + 0.6 * MM;
  }

  y += 4 * MM;
  const tx = M + (W - ROLL_TIMBRE_WIDTH) / 2;
  y += p.pdf417(a.symbol, tx, y, PDF417_ROLL_BAR_REDUCTION_PT).height + 1.5 * MM;
  for (const [i, caption] of timbreCaptions(c).entries())
    y += p.text(caption, M, y, W, { size: i === 0 ? 8 : 7.5, bold: i === 0, align: 'center' }) + 0.2 * MM;

  if (c.cedible) {
    y += 4 * MM;
    const top = y;
    const pad = 2 * MM;
    y += pad + p.text(ACUSE_TITLE, M, y + pad, W, { size: 8.5, bold: true, align: 'center' }) + 1.5 * MM;
    for (const f of ACUSE_FIELDS) {
      const lw = p.widthOf(`${f}:`, { size: 8, bold: true }) + 1.5 * MM;
      p.text(`${f}:`, M + pad, y, W, { size: 8, bold: true });
      y += 4 * MM;
      p.line(M + pad + lw, y - 0.8 * MM, M + W - pad, y - 0.8 * MM, { color: '#000000' });
      y += 1.5 * MM;
    }
    y += p.text(ACUSE_LEGAL, M + pad, y, W - 2 * pad, { size: 6.5 }) + pad;
    p.box(M, top, W, y - top, { stroke: '#000000', lineWidth: 0.7 });
    y += 2 * MM + p.text(cedibleMark(d), M, y + 2 * MM, W, { size: 11, bold: true, align: 'center' });
  }
  return y;
}

export function layoutRoll(doc: PDFKit.PDFDocument, c: RenderContext, a: LayoutAssets): void {
  const height = receipt(new Painter(doc, true), c, a, M) + M;
  doc.addPage({ size: [ROLL_WIDTH, height], margin: 0 });
  receipt(new Painter(doc, false), c, a, M);
}
