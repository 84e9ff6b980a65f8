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
import { documentName } from './names.ts';
import { fitSize, GREY, MM, Painter, RED, RULE, SHADE, type TextStyle } from './painter.ts';
import { pdf417WidthPt } from './timbre.ts';
import type { LayoutAssets } from './render.ts';

/**
 * Letter paper (carta, 215.9 × 279.4 mm), the usual office print-out. Top: the issuer (with the
 * logo) on the left, the red box with RUT, document name and number on the right and the SII unit
 * under it. Then the receptor and the terms, the lines (continued on further pages when they do
 * not fit, with the table head repeated), the references and the totals. At the foot of the last
 * page: the timbre on the left, 2 cm from the edge (docs/sources.md §3.3; 16 data columns of 0.254 mm
 * modules: 8.7 cm wide, 3–4 cm high, above the SII's 5 × 2 cm minimum) with its
 * three captions and, on the cedible copy, the acuse de recibo on the right with "CEDIBLE".
 */
const PAGE = { width: 612, height: 792 } as const;
const M = 12 * MM;
const W = PAGE.width - 2 * M;
const BOTTOM = PAGE.height - M - 4 * MM; // room for the page number
export const CARTA_TIMBRE_COLUMNS = 16;
const CARTA_TIMBRE_WIDTH = pdf417WidthPt(CARTA_TIMBRE_COLUMNS);
/** The timbre's distance from the left edge of the page: at least 2 cm (docs/sources.md §3.3). */
const TIMBRE_X = 20 * MM;

function header(p: Painter, c: RenderContext, a: LayoutAssets, y0: number): number {
  const d = c.doc;
  const boxW = 70 * MM;
  const boxX = PAGE.width - M - boxW;
  const inner = boxW - 8 * MM;
  const b = boxLines(d);
  const st: TextStyle = { size: 12, bold: true, align: 'center', color: RED };
  const gap = 1.8 * MM;
  const boxH = 4 * MM + p.measure(b.rut, inner, st) + gap + p.measure(b.name, inner, st) + gap + p.measure(b.folio, inner, st) + 4 * MM;
  p.box(boxX, y0, boxW, boxH, { stroke: RED, lineWidth: 2 });
  let y = y0 + 4 * MM;
  y += p.text(b.rut, boxX + 4 * MM, y, inner, st) + gap;
  y += p.text(b.name, boxX + 4 * MM, y, inner, st) + gap;
  p.text(b.folio, boxX + 4 * MM, y, inner, st);
  const right =
    y0 + boxH + 2 * MM + p.text(siiLine(c), boxX, y0 + boxH + 2 * MM, boxW, { size: 10, bold: true, align: 'center', color: RED });

  let x = M;
  let w = boxX - M - 6 * MM;
  let logoBottom = y0;
  if (a.logo) {
    const [lw, lh] = fitSize(a.logo, [40 * MM, 24 * MM]);
    p.image(a.logo.png, M, y0, [lw, lh]);
    x += lw + 4 * MM;
    w -= lw + 4 * MM;
    logoBottom = y0 + lh;
  }
  let ly = y0 + p.text(d.emisor.razonSocial, x, y0, w, { size: 12, bold: true }) + 1.5 * MM;
  for (const l of issuerLines(d)) ly += p.text(l, x, ly, w, { size: 8.5 }) + 0.6 * MM;
  return Math.max(right, ly, logoBottom);
}

/** Label: value rows in a column; returns the height. */
function rows(p: Painter, list: Row[], x: number, y: number, width: number, labelW: number): number {
  let h = 0;
  for (const [label, value] of list) {
    const lh = p.text(`${label}:`, x, y + h, labelW, { size: 8.5, bold: true });
    const vh = p.text(value, x + labelW, y + h, width - labelW, { size: 8.5 });
    h += Math.max(lh, vh) + 0.9 * MM;
  }
  return h;
}

function infoBlock(p: Painter, c: RenderContext, y0: number): number {
  const pad = 2.5 * MM;
  const rec = receptorRows(c.doc);
  const docRows = documentRows(c.doc);
  const transport = transporteRows(c.doc);
  const leftW = rec.length ? W * 0.6 : 0;
  const rightX = M + leftW + (rec.length ? 3 * MM : 0);
  const rightW = W - leftW - (rec.length ? 3 * MM : 0) - pad;
  const hl = rec.length ? rows(p, rec, M + pad, y0 + pad, leftW - pad, 22 * MM) : 0;
  const hr = rows(p, docRows, rightX + (rec.length ? 0 : pad), y0 + pad, rightW - (rec.length ? 0 : pad), 30 * MM);
  let h = Math.max(hl, hr) + 2 * pad - 0.9 * MM;
  if (transport.length) {
    const ty = y0 + h;
    p.line(M, ty, M + W, ty, { color: RULE });
    const th = p.text('Transporte', M + pad, ty + pad, W, { size: 8.5, bold: true }) + 0.8 * MM;
    h += pad + th + rows(p, transport, M + pad, ty + pad + th, W - 2 * pad, 30 * MM) + pad - 0.9 * MM;
  }
  p.box(M, y0, W, h, { stroke: RULE, lineWidth: 0.7 });
  return y0 + h;
}

interface Column {
  key: keyof ReturnType<typeof lineCells>;
  title: string;
  width: number;
  align: 'left' | 'right';
}

function lineColumns(c: RenderContext): Column[] {
  const cells = c.doc.detalle.map((l) => lineCells(c.doc, l));
  const any = (k: keyof (typeof cells)[number]) => cells.some((x) => x[k]);
  const cols: Column[] = [];
  if (any('codigo')) cols.push({ key: 'codigo', title: 'Código', width: 22 * MM, align: 'left' });
  cols.push({ key: 'nombre', title: 'Descripción', width: 0, align: 'left' });
  cols.push({ key: 'cantidad', title: 'Cantidad', width: 17 * MM, align: 'right' });
  if (any('unidad')) cols.push({ key: 'unidad', title: 'Unidad', width: 14 * MM, align: 'left' });
  cols.push({ key: 'precio', title: 'Precio unitario', width: 24 * MM, align: 'right' });
  if (any('ajuste')) cols.push({ key: 'ajuste', title: 'Desc./Recargo', width: 26 * MM, align: 'right' });
  cols.push({ key: 'monto', title: 'Valor', width: 26 * MM, align: 'right' });
  const fixed = cols.reduce((s, x) => s + x.width, 0);
  cols.find((x) => x.key === 'nombre')!.width = W - fixed;
  return cols;
}

const CELL = 1.5 * MM;

const TABLE_HEAD = 6 * MM;

function tableHead(p: Painter, cols: Column[], y: number): number {
  const h = TABLE_HEAD;
  p.box(M, y, W, h, { fill: SHADE });
  let x = M;
  for (const col of cols) {
    p.text(col.title, x + CELL, y + 1.6 * MM, col.width - 2 * CELL, { size: 7.5, bold: true, align: col.align });
    x += col.width;
  }
  return y + h;
}

function lineRow(p: Painter, cols: Column[], cells: ReturnType<typeof lineCells>, y: number): number {
  let h = 0;
  let x = M;
  for (const col of cols) {
    const w = col.width - 2 * CELL;
    let ch = p.text(cells[col.key], x + CELL, y + CELL, w, { size: 8.5, align: col.align });
    if (col.key === 'nombre' && cells.nota)
      ch += 0.4 * MM + p.text(cells.nota, x + CELL, y + CELL + ch + 0.4 * MM, w, { size: 7, color: GREY });
    h = Math.max(h, ch);
    x += col.width;
  }
  return h + 2 * CELL;
}

function referencesBlock(p: Painter, c: RenderContext, y0: number): number {
  const refs = referenceCells(c.doc);
  if (!refs.length) return y0;
  let y = y0 + p.text('Referencias', M, y0, W, { size: 9, bold: true }) + 1 * MM;
  const widths = [58 * MM, 24 * MM, 22 * MM];
  const cols: [string, number][] = [
    ['Documento', widths[0]!],
    ['Folio', widths[1]!],
    ['Fecha', widths[2]!],
    ['Motivo', W - widths[0]! - widths[1]! - widths[2]!],
  ];
  const head = 5.5 * MM;
  p.box(M, y, W, head, { fill: SHADE });
  let x = M;
  for (const [title, w] of cols) {
    p.text(title, x + CELL, y + 1.4 * MM, w - 2 * CELL, { size: 7.5, bold: true });
    x += w;
  }
  y += head;
  for (const r of refs) {
    x = M;
    let h = 0;
    for (const [i, v] of [r.tipo, r.folio, r.fecha, r.razon].entries()) {
      const w = cols[i]![1];
      h = Math.max(h, p.text(v, x + CELL, y + CELL, w - 2 * CELL, { size: 8.5 }));
      x += w;
    }
    y += h + 2 * CELL;
    p.line(M, y, M + W, y, { color: SHADE });
  }
  return y;
}

function totalsBlock(p: Painter, c: RenderContext, y0: number): number {
  const boxW = 75 * MM;
  const x = PAGE.width - M - boxW;
  const pad = 2 * MM;
  let y = y0 + pad;
  for (const r of totalRows(c.doc)) {
    const st: TextStyle = r.strong ? { size: 10.5, bold: true } : { size: 8.5 };
    if (r.strong) {
      p.line(x + pad, y, x + boxW - pad, y, { color: RULE });
      y += 1.2 * MM;
    }
    const lh = p.text(r.label, x + pad, y, boxW * 0.55 - pad, st);
    const vh = p.text(r.value, x + boxW * 0.55, y, boxW * 0.45 - pad, { ...st, align: 'right' });
    y += Math.max(lh, vh) + 1.2 * MM;
  }
  y += pad - 1.2 * MM;
  p.box(x, y0, boxW, y - y0, { stroke: RULE, lineWidth: 0.7 });
  const note = montoBrutoNote(c.doc);
  const left = note ? y0 + p.text(note, M, y0 + pad, W - boxW - 6 * MM, { size: 8, color: GREY }) : y0;
  return Math.max(y, left);
}

/** Timbre (left) and, on the cedible copy, the acuse de recibo (right); returns the height. */
function footer(p: Painter, c: RenderContext, a: LayoutAssets, y0: number): number {
  const sym = p.pdf417(a.symbol, TIMBRE_X, y0);
  let ty = y0 + sym.height + 1.5 * MM;
  for (const [i, caption] of timbreCaptions(c).entries())
    ty += p.text(caption, TIMBRE_X, ty, CARTA_TIMBRE_WIDTH, { size: i === 0 ? 8.5 : 8, bold: i === 0, align: 'center' }) + 0.3 * MM;
  if (!c.cedible) return ty - y0;
  const x = TIMBRE_X + CARTA_TIMBRE_WIDTH + 8 * MM;
  const w = PAGE.width - M - x;
  const pad = 2.5 * MM;
  let y = y0 + pad;
  y += p.text(ACUSE_TITLE, x + pad, y, w - 2 * pad, { size: 9, bold: true, align: 'center' }) + 2 * MM;
  for (const f of ACUSE_FIELDS) {
    const lw = p.widthOf(`${f}:`, { size: 8.5, bold: true }) + 1.5 * MM;
    p.text(`${f}:`, x + pad, y, 20 * MM, { size: 8.5, bold: true });
    y += 4.2 * MM;
    p.line(x + pad + lw, y - 0.8 * MM, x + w - pad, y - 0.8 * MM, { color: '#000000', width: 0.5 });
    y += 1.6 * MM;
  }
  y += 0.6 * MM + p.text(ACUSE_LEGAL, x + pad, y + 0.6 * MM, w - 2 * pad, { size: 6.8 }) + pad;
  p.box(x, y0, w, y - y0, { stroke: '#000000', lineWidth: 0.7 });
  const mark = cedibleMark(c.doc);
  y += 1.5 * MM + p.text(mark, x, y + 1.5 * MM, w, { size: 13, bold: true, align: 'right' });
  return Math.max(ty, y) - y0;
}

export function layoutCarta(doc: PDFKit.PDFDocument, c: RenderContext, a: LayoutAssets): void {
  const p = new Painter(doc, false);
  const dry = new Painter(doc, true);
  const newPage = () => doc.addPage({ size: 'LETTER', margin: 0 });
  newPage();
  let y = header(p, c, a, M) + 5 * MM;
  y = infoBlock(p, c, y) + 5 * MM;

  const cols = lineColumns(c);
  y = tableHead(p, cols, y);
  const title = `${documentName(c.doc.tipoDte)} Nº ${c.doc.folio} (continuación)`;
  const continued = (withHead: boolean) => {
    newPage();
    const top = M + p.text(title, M, M, W, { size: 10, bold: true, color: RED }) + 3 * MM;
    return withHead ? tableHead(p, cols, top) : top;
  };
  // The lines, then the references and the totals; the timbre block sits at the foot of the last page.
  const cells = c.doc.detalle.map((l) => lineCells(c.doc, l));
  const heights = cells.map((x) => lineRow(dry, cols, x, 0));
  const refsH = referencesBlock(dry, c, 0);
  const totalsH = totalsBlock(dry, c, 0);
  const footH = footer(dry, c, a, 0);
  const tail = 5 * MM + refsH + (refsH ? 4 * MM : 0) + totalsH + 6 * MM + footH;
  const breaks = paginate(heights, y, M + dry.measure(title, W, { size: 10, bold: true }) + 3 * MM + TABLE_HEAD, tail);
  cells.forEach((x, i) => {
    if (breaks.has(i)) y = continued(true);
    lineRow(p, cols, x, y);
    y += heights[i]!;
    p.line(M, y, M + W, y, { color: SHADE });
  });
  y += 5 * MM;
  if (refsH && y + refsH > BOTTOM) y = continued(false);
  y = referencesBlock(p, c, y) + (refsH ? 4 * MM : 0);
  if (y + totalsH > BOTTOM) y = continued(false);
  y = totalsBlock(p, c, y) + 6 * MM;
  if (y + footH > BOTTOM) y = continued(false);
  footer(p, c, a, Math.max(y, BOTTOM - footH));
}

/**
 * Where the lines break to a new page (indexes of the first line of each continuation page). When
 * what follows the lines (references, totals, timbre) does not fit after the last one, the last
 * line moves to the next page with them, so no page holds the totals alone.
 */
function paginate(heights: number[], firstTop: number, continuationTop: number, tail: number): Set<number> {
  const breaks = new Set<number>();
  let y = firstTop;
  let pageStart = 0;
  heights.forEach((h, i) => {
    if (y + h > BOTTOM && i > pageStart) {
      breaks.add(i);
      y = continuationTop;
      pageStart = i;
    }
    y += h;
  });
  const last = heights.length - 1;
  if (y + tail > BOTTOM && last > pageStart && continuationTop + heights[last]! + tail <= BOTTOM) breaks.add(last);
  return breaks;
}

/** "Página n de N" on documents of more than one page. */
export function numberPages(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  if (range.count < 2) return;
  const p = new Painter(doc, false);
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    p.text(`Página ${i + 1} de ${range.count}`, M, PAGE.height - M - 1 * MM, W, { size: 7.5, align: 'right', color: GREY });
  }
}
