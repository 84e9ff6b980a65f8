/**
 * A tenant's logo, checked for real and made canonical before it is stored (docs/dte.md, "The
 * logo"). An uploaded file is only trusted once it has been decoded in full:
 *  1. its first bytes must say PNG or JPEG, and agree with the declared Content-Type;
 *  2. the dimensions in its header are checked *before* decoding (a 20 KB file can claim
 *     50 000 × 50 000 pixels), between MIN_SIDE and MAX_SIDE, and so is what decoding it would
 *     hold: its pixels × the bytes per pixel the decoders expand them to (RGBA, 4 bytes; 8 for a
 *     16-bit PNG) must fit LOGO_MAX_DECODED_BYTES. A 124 KB all-zero 16-bit 4000 × 4000 PNG
 *     inflates to 128 MB and costs the decoders ~400 MB: it is refused here, before any pixel;
 *  3. it is decoded completely (pngjs checks every CRC and the zlib stream; jpeg-js decodes
 *     strictly, with memory and resolution caps) — in a child process, one at a time
 *     (logo-isolated.ts), so a decode never stalls the event loop and its memory goes with the
 *     process;
 *  4. the pixels are re-encoded as a plain 8-bit PNG, scaled down to at most LOGO_BOX pixels.
 * What is stored, served and embedded in PDFs is that re-encoded PNG: never the uploaded bytes,
 * so no metadata (EXIF, GPS, comments) and no malformed structure a PDF reader might trip on
 * ever leaves the service.
 *
 * This file holds the limits, the error and the header checks; the decoding and re-encoding
 * (prepareLogo, with jpeg-js and pngjs) is logo-prepare.ts, which only that process loads
 * (logo-decoder.ts).
 */
export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_MIN_SIDE = 16;
export const LOGO_MAX_SIDE = 4000;
/** Stored logos fit this box: plenty for 4 cm of print at 300 dpi. */
export const LOGO_BOX = { width: 800, height: 400 } as const;
/**
 * What the decoders may expand a logo to: width × height × bytes per pixel (decodedBytesPerPixel).
 * 32 MiB is 8.4 megapixels at 8 bits per channel (4000 × 2097, 2896 × 2896), 4.2 at 16; ten times
 * what the print needs (LOGO_BOX). A decode's real peak is a few times this (the compressed and
 * filtered rows, JPEG's coefficient blocks): docs/dte.md, "The logo", has the figures measured.
 */
export const LOGO_MAX_DECODED_BYTES = 32 * 1024 * 1024;

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
  | { reason: 'dimensions'; message: string; width: number; height: number }
  | { reason: 'too_many_pixels'; message: string; width: number; height: number; bitDepth: number; maxPixels: number };

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

export interface LogoHeader {
  width: number;
  height: number;
  /** Bits per sample: PNG 1, 2, 4, 8 or 16; JPEG 8 (12 for the rare extended JPEGs). */
  bitDepth: number;
}

/** Width, height and bit depth from the header alone (PNG IHDR, JPEG SOFn), without decoding any pixel. */
export function headerDimensions(bytes: Buffer, format: LogoFormat): LogoHeader | null {
  if (format === 'png') {
    if (bytes.length < 26 || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), bitDepth: bytes[24]! };
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
      return { height: bytes.readUInt16BE(pos + 5), width: bytes.readUInt16BE(pos + 7), bitDepth: bytes[pos + 4]! };
    }
    if (marker === 0xda || length < 2) return null; // scan data before any frame header
    pos += 2 + length;
  }
  return null;
}

/** Bytes per pixel once decoded: both decoders expand every pixel to RGBA, at 16 bits a sample for a 16-bit PNG. */
export const decodedBytesPerPixel = (h: LogoHeader): number => (h.bitDepth > 8 ? 8 : 4);

const CONTENT_TYPES: Record<LogoFormat, readonly string[]> = { png: ['image/png'], jpeg: ['image/jpeg', 'image/jpg', 'image/pjpeg'] };

const megapixels = (n: number) => (n / 1e6).toFixed(1);

/**
 * Every check that needs no decoding (steps 1 and 2 of the note above): cheap, so the caller runs
 * it before handing the file to a decoder process. Throws LogoError with a message that says what to fix.
 */
export function checkLogoHeader(bytes: Buffer, contentType?: string): LogoHeader & { format: LogoFormat } {
  if (bytes.length === 0) throw new LogoError({ reason: 'empty', message: 'The logo is empty: send the PNG or JPEG file as the body.' });
  const format = sniffImage(bytes);
  if (!format)
    throw new LogoError({ reason: 'not_png_or_jpeg', message: 'The logo is not a PNG or JPEG image (its first bytes say otherwise).' });
  const declared = contentType?.split(';')[0]?.trim().toLowerCase();
  if (declared && !CONTENT_TYPES[format].includes(declared))
    throw new LogoError({
      reason: 'content_type_mismatch',
      message: `The file is a ${format.toUpperCase()} image but was sent as ${declared}. Send it with Content-Type ${CONTENT_TYPES[format][0]}.`,
    });
  const header = headerDimensions(bytes, format);
  if (!header)
    throw new LogoError({ reason: 'undecodable', message: `The ${format.toUpperCase()} file is damaged: its header cannot be read.` });
  const { width, height, bitDepth } = header;
  if (width < LOGO_MIN_SIDE || height < LOGO_MIN_SIDE || width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE)
    throw new LogoError({
      reason: 'dimensions',
      width,
      height,
      message: `The logo is ${width} × ${height} pixels; each side must be between ${LOGO_MIN_SIDE} and ${LOGO_MAX_SIDE} pixels.`,
    });
  const perPixel = decodedBytesPerPixel(header);
  const maxPixels = Math.floor(LOGO_MAX_DECODED_BYTES / perPixel);
  if (width * height > maxPixels) {
    const depth = bitDepth > 8 ? ` at ${bitDepth} bits per channel` : '';
    throw new LogoError({
      reason: 'too_many_pixels',
      width,
      height,
      bitDepth,
      maxPixels,
      message:
        `The logo is ${width} × ${height} pixels${depth} (${megapixels(width * height)} megapixels); a logo may have at most ` +
        `${megapixels(maxPixels)} megapixels${depth}. Scale it down (it is printed at no more than ` +
        `${LOGO_BOX.width} × ${LOGO_BOX.height} pixels)${bitDepth > 8 ? ' or save it at 8 bits per channel' : ''}.`,
    });
  }
  return { format, ...header };
}
