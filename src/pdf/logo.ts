/**
 * A tenant's logo, checked for real and made canonical before it is stored (docs/dte.md, "The
 * logo"). An uploaded file is only trusted once it has been decoded in full:
 *  1. its first bytes must say PNG or JPEG, and agree with the declared Content-Type;
 *  2. the dimensions in its header are checked *before* decoding (a 20 KB file can claim
 *     50 000 × 50 000 pixels), between MIN_SIDE and MAX_SIDE;
 *  3. it is decoded completely (pngjs checks every CRC and the zlib stream; jpeg-js decodes
 *     strictly, with memory and resolution caps);
 *  4. the pixels are re-encoded as a plain 8-bit PNG, scaled down to at most LOGO_BOX pixels.
 * What is stored, served and embedded in PDFs is that re-encoded PNG: never the uploaded bytes,
 * so no metadata (EXIF, GPS, comments) and no malformed structure a PDF reader might trip on
 * ever leaves the service.
 *
 * This file holds the limits, the error and the header checks; the decoding and re-encoding
 * (prepareLogo, with jpeg-js and pngjs) is logo-prepare.ts, loaded on the first upload
 * (src/pdf/index.ts; docs/performance.md, "Loaded on first use").
 */
export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_MIN_SIDE = 16;
export const LOGO_MAX_SIDE = 4000;
/** Stored logos fit this box: plenty for 4 cm of print at 300 dpi. */
export const LOGO_BOX = { width: 800, height: 400 } as const;

export type LogoFormat = 'png' | 'jpeg';

export interface PreparedLogo {
  /** The canonical PNG. */
  png: Buffer;
  width: number;
  height: number;
  /** What was uploaded. */
  source: { format: LogoFormat; width: number; height: number; bytes: number };
}

export type LogoProblem =
  | { reason: 'empty' | 'not_png_or_jpeg' | 'content_type_mismatch' | 'undecodable'; message: string }
  | { reason: 'dimensions'; message: string; width: number; height: number };

export class LogoError extends Error {
  readonly problem: LogoProblem;
  constructor(problem: LogoProblem) {
    super(problem.message);
    this.name = 'LogoError';
    this.problem = problem;
  }
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffImage(bytes: Buffer): LogoFormat | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** Width and height from the header alone (PNG IHDR, JPEG SOFn), without decoding any pixel. */
export function headerDimensions(bytes: Buffer, format: LogoFormat): { width: number; height: number } | null {
  if (format === 'png') {
    if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) return null;
    const marker = bytes[pos + 1]!;
    if (marker === 0xff) {
      pos++;
      continue;
    }
    const length = bytes.readUInt16BE(pos + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (pos + 9 > bytes.length) return null;
      return { height: bytes.readUInt16BE(pos + 5), width: bytes.readUInt16BE(pos + 7) };
    }
    if (marker === 0xda || length < 2) return null; // scan data before any frame header
    pos += 2 + length;
  }
  return null;
}
