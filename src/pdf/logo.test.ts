import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { headerDimensions, LOGO_BOX, LogoError, sniffImage } from './logo.ts';
import { prepareLogo } from './logo-prepare.ts';

const png = (w: number, h: number, alpha = 255) => {
  const p = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) p.data.set([200, 30, 30, alpha], i * 4);
  return PNG.sync.write(p);
};
const jpg = (w: number, h: number) => jpeg.encode({ width: w, height: h, data: Buffer.alloc(w * h * 4, 0x7f) }, 90).data;
const problem = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof LogoError) return e.problem.reason;
    throw e;
  }
  return 'accepted';
};

describe('logo checks', () => {
  it('recognises PNG and JPEG by their bytes and reads their size from the header alone', () => {
    expect(sniffImage(png(20, 30))).toBe('png');
    expect(sniffImage(jpg(20, 30))).toBe('jpeg');
    expect(sniffImage(Buffer.from('GIF89a'))).toBeNull();
    expect(headerDimensions(png(20, 30), 'png')).toEqual({ width: 20, height: 30 });
    expect(headerDimensions(jpg(640, 48), 'jpeg')).toEqual({ width: 640, height: 48 });
  });

  it('re-encodes as an 8-bit PNG, opaque images without alpha, large ones scaled into the box', () => {
    const opaque = prepareLogo(png(100, 50), 'image/png');
    expect(PNG.sync.read(opaque.png).alpha).toBe(false);
    const translucent = prepareLogo(png(100, 50, 128), 'image/png');
    expect(PNG.sync.read(translucent.png).alpha).toBe(true);
    const big = prepareLogo(jpg(2400, 600), 'image/jpeg');
    expect([big.width, big.height]).toEqual([LOGO_BOX.width, 200]);
    expect(big.source).toEqual({ format: 'jpeg', width: 2400, height: 600, bytes: expect.any(Number) });
  });

  it('refuses what is not a real image, before decoding anything it does not have to', () => {
    expect(problem(() => prepareLogo(Buffer.alloc(0)))).toBe('empty');
    expect(problem(() => prepareLogo(Buffer.from('%PDF-1.7')))).toBe('not_png_or_jpeg');
    expect(problem(() => prepareLogo(png(20, 20), 'image/jpeg'))).toBe('content_type_mismatch');
    const huge = Buffer.from(png(20, 20));
    huge.writeUInt32BE(100_000, 16);
    expect(problem(() => prepareLogo(huge))).toBe('dimensions');
    expect(problem(() => prepareLogo(png(20, 20).subarray(0, 40)))).toBe('undecodable');
    expect(problem(() => prepareLogo(jpg(64, 64).subarray(0, 200)))).toBe('undecodable');
    expect(problem(() => prepareLogo(png(20, 20)))).toBe('accepted');
  });
});
