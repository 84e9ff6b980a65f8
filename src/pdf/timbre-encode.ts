import bwipjs from 'bwip-js';
import { PDF417_SECURITY_LEVEL, ROW_HEIGHT, type Pdf417Symbol } from './timbre.ts';

/**
 * The timbre's PDF417 encoder (timbre.ts says what is encoded and how it is drawn). Its own file
 * because bwip-js is 2 MiB of source: only the renderer imports it, on the first PDF
 * (src/pdf/index.ts).
 */
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
