import { describe, expect, it } from 'vitest';
import { faviconIco, faviconPixel } from './favicon.ts';

describe('favicon.ico', () => {
  it('is one 32×32 32-bit image with its directory entry pointing at it', () => {
    const ico = faviconIco();
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([ico[6], ico[7], ico.readUInt16LE(12)]).toEqual([32, 32, 32]);
    const size = ico.readUInt32LE(14);
    const offset = ico.readUInt32LE(18);
    expect(offset + size).toBe(ico.length);
    expect(ico.readUInt32LE(offset)).toBe(40); // BITMAPINFOHEADER
    expect([ico.readInt32LE(offset + 4), ico.readInt32LE(offset + 8)]).toEqual([32, 64]);
    expect(size).toBe(40 + 32 * 32 * 4 + 32 * 4);
  });

  it('draws the page on the blue square, with transparent rounded corners', () => {
    expect(faviconPixel(0, 0)).toBeNull();
    expect(faviconPixel(31, 31)).toBeNull();
    expect(faviconPixel(2, 16)).toEqual([0x0b, 0x3d, 0x6e]);
    expect(faviconPixel(10, 12)).toEqual([0xff, 0xff, 0xff]);
    expect(faviconPixel(14, 14)).toEqual([0x0b, 0x3d, 0x6e]); // a line of text on the page
    // The top row is stored last (BMP rows go bottom-up), each pixel as BGRA.
    const ico = faviconIco();
    const px = ico.readUInt32LE(18) + 40 + (31 * 32 + 16) * 4;
    expect([...ico.subarray(px, px + 4)]).toEqual([0x6e, 0x3d, 0x0b, 0xff]);
  });
});
