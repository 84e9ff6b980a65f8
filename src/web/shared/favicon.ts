/**
 * The service's icon: the SVG (a page of lines on the brand's blue) that the pages link, and the
 * same drawing as a 32×32 ICO for clients that ask /favicon.ico without reading the page (API
 * responses, old browsers). The ICO is drawn here pixel by pixel, so no binary file or image
 * library is needed: one 32-bit BMP image (bottom-up BGRA rows, then an all-opaque AND mask).
 */
const SIZE = 32;
const BLUE = [0x0b, 0x3d, 0x6e] as const;
const LIGHT = [0x9d, 0xb8, 0xd9] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

/** The colour of pixel (x, y) — y from the top — or null for transparent (the rounded corners). */
export function faviconPixel(x: number, y: number): readonly [number, number, number] | null {
  const r = 6;
  const cx = x < r ? r : x >= SIZE - r ? SIZE - r - 1 : x;
  const cy = y < r ? r : y >= SIZE - r ? SIZE - r - 1 : y;
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return null;
  // The page: x 9..23, y 5..26, its top-right corner folded (19..23 × 5..9).
  if (x >= 9 && x < 24 && y >= 5 && y < 27) {
    if (x >= 19 && y < 10) return x - 19 >= y - 5 ? LIGHT : WHITE;
    const line = (y === 14 || y === 15 || y === 18 || y === 19 || y === 22 || y === 23) && x >= 12 && x < (y >= 22 ? 18 : 21);
    return line ? BLUE : WHITE;
  }
  return BLUE;
}

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const c = faviconPixel(x, y);
      const o = ((SIZE - 1 - y) * SIZE + x) * 4; // BMP rows go bottom-up
      if (c) pixels.set([c[2], c[1], c[0], 0xff], o); // BGRA
    }
  const mask = Buffer.alloc(SIZE * (SIZE / 8)); // 1 bit per pixel, rows of 4 bytes: all 0 = use the alpha
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // an ICO's height counts the image and its mask
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}
