import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { checkLogoHeader, LOGO_BOX, LOGO_MAX_DECODED_BYTES, LogoError, type LogoFormat, type PreparedLogo } from './logo.ts';

/**
 * A logo's decoding and canonical re-encoding (the steps are in logo.ts's note). Synchronous and
 * CPU-bound for up to a second or two: run it in a child process (logo-isolated.ts), never on the
 * event loop.
 */

/**
 * jpeg-js's own caps, a second guard behind checkLogoHeader's budget (a file whose later frame
 * header disagrees with the first): it counts 4 bytes a sample for the coefficient blocks, 1 for
 * the component planes and 4 a pixel for the RGBA output, so a four-component JPEG within the
 * budget needs up to 6 × LOGO_MAX_DECODED_BYTES (24 bytes a pixel).
 */
const JPEG_MAX_MP = LOGO_MAX_DECODED_BYTES / 4 / 1e6;
const JPEG_MAX_MEMORY_MB = (6 * LOGO_MAX_DECODED_BYTES) / (1024 * 1024) + 16; // + MCU padding, tables

/** RGBA pixels → at most LOGO_BOX, averaging each target pixel's source area (alpha-weighted colour). */
function fitInBox(rgba: Uint8Array, width: number, height: number): { data: Uint8Array; width: number; height: number } {
  const scale = Math.min(1, LOGO_BOX.width / width, LOGO_BOX.height / height);
  if (scale === 1) return { data: rgba, width, height };
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const out = new Uint8Array(w * h * 4);
  for (let ty = 0; ty < h; ty++) {
    const y0 = Math.floor((ty * height) / h);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * height) / h));
    for (let tx = 0; tx < w; tx++) {
      const x0 = Math.floor((tx * width) / w);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * width) / w));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      let n = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const i = (y * width + x) * 4;
          const al = rgba[i + 3]!;
          r += rgba[i]! * al;
          g += rgba[i + 1]! * al;
          b += rgba[i + 2]! * al;
          a += al;
          n++;
        }
      const o = (ty * w + tx) * 4;
      out[o] = a ? Math.round(r / a) : 255;
      out[o + 1] = a ? Math.round(g / a) : 255;
      out[o + 2] = a ? Math.round(b / a) : 255;
      out[o + 3] = Math.round(a / n);
    }
  }
  return { data: out, width: w, height: h };
}

function decode(bytes: Buffer, format: LogoFormat): { data: Uint8Array; width: number; height: number } {
  if (format === 'png') {
    const png = PNG.sync.read(bytes, { checkCRC: true });
    return { data: png.data, width: png.width, height: png.height };
  }
  const img = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    tolerantDecoding: false,
    maxResolutionInMP: JPEG_MAX_MP,
    maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB,
  });
  return { data: img.data, width: img.width, height: img.height };
}

/**
 * Checks an uploaded logo and returns the canonical PNG to store. Throws LogoError (with a reason
 * and a message that says what to fix) when the file is not a real, decodable PNG or JPEG of
 * sensible dimensions. The byte limit is the caller's (the route's body limit).
 */
export function prepareLogo(bytes: Buffer, contentType?: string): PreparedLogo {
  const { format, width, height } = checkLogoHeader(bytes, contentType);
  let pixels: { data: Uint8Array; width: number; height: number };
  try {
    pixels = decode(bytes, format);
  } catch {
    throw new LogoError({
      reason: 'undecodable',
      message: `The ${format.toUpperCase()} file is damaged or truncated: it cannot be decoded.`,
    });
  }
  if (pixels.width !== width || pixels.height !== height || pixels.data.length < width * height * 4)
    throw new LogoError({
      reason: 'undecodable',
      message: `The ${format.toUpperCase()} file is inconsistent: its pixels do not match its header.`,
    });
  const fitted = fitInBox(pixels.data, width, height);
  let opaque = true;
  for (let i = 3; i < fitted.data.length; i += 4)
    if (fitted.data[i] !== 255) {
      opaque = false;
      break;
    }
  const out = new PNG({ width: fitted.width, height: fitted.height });
  out.data = Buffer.from(fitted.data.buffer, fitted.data.byteOffset, fitted.width * fitted.height * 4);
  const png = PNG.sync.write(out, { colorType: opaque ? 2 : 6, inputHasAlpha: true, deflateLevel: 9 });
  return { png, width: fitted.width, height: fitted.height, source: { format, width, height, bytes: bytes.length } };
}
