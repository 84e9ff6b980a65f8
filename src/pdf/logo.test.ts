import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { watchEventLoop } from '../../test/support/event-loop-stalls.ts';
import { gradientJpg } from '../../test/support/logo-images.ts';
import { zeroPng } from '../../test/support/zero-png.ts';
import { headerDimensions, LOGO_BOX, LogoError, sniffImage } from './logo.ts';
import { createLogoPreparer } from './logo-isolated.ts';
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
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof LogoError) return e.problem;
    throw e;
  }
  return 'accepted';
};

describe('logo checks', () => {
  it('recognises PNG and JPEG by their bytes and reads their size from the header alone', () => {
    expect(sniffImage(png(20, 30))).toBe('png');
    expect(sniffImage(jpg(20, 30))).toBe('jpeg');
    expect(sniffImage(Buffer.from('GIF89a'))).toBeNull();
    expect(headerDimensions(png(20, 30), 'png')).toEqual({ width: 20, height: 30, bitDepth: 8 });
    expect(headerDimensions(jpg(640, 48), 'jpeg')).toEqual({ width: 640, height: 48, bitDepth: 8 });
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

describe('logo bombs and large logos (issue 30, D and E)', () => {
  it('D: refuses the 124 KB all-zero 16-bit 4000 × 4000 PNG from its header, naming the limit', async () => {
    // Inflates to 128 MB; pngjs held ~400 MB and 3.7 s of the event loop to decode it.
    const bomb = await zeroPng({ width: 4000, height: 4000, bitDepth: 16 });
    expect(bomb.length).toBeLessThan(200_000);
    const started = process.cpuUsage();
    const p = refusal(() => prepareLogo(bomb, 'image/png'));
    const cpu = process.cpuUsage(started);
    expect(p).toMatchObject({ reason: 'too_many_pixels', width: 4000, height: 4000, bitDepth: 16, maxPixels: 4_194_304 });
    expect(p !== 'accepted' && p.message).toMatch(/at most 4\.2 megapixels at 16 bits per channel\. Scale it down .* or save it at 8 bits/);
    // Refused before any pixel is decoded: a generous bound on CPU time, not a timing target.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(200);
    // At 16 bits per channel, 4.2 megapixels are in budget, and decode.
    const atLimit = prepareLogo(await zeroPng({ width: 2048, height: 2048, bitDepth: 16 }), 'image/png');
    expect([atLimit.width, atLimit.height]).toEqual([400, 400]);
  });

  it('E: a valid 4000 × 4000 JPEG is refused for its size, not as damaged; 4000 × 2000 is taken', () => {
    const p = refusal(() => prepareLogo(gradientJpg(4000, 4000), 'image/jpeg'));
    expect(p).toMatchObject({ reason: 'too_many_pixels', width: 4000, height: 4000, maxPixels: 8_388_608 });
    expect(p !== 'accepted' && p.message).toMatch(/4000 × 4000 pixels \(16\.0 megapixels\); a logo may have at most 8\.4 megapixels/);
    const wide = prepareLogo(gradientJpg(4000, 2000), 'image/jpeg');
    expect([wide.width, wide.height]).toEqual([LOGO_BOX.width, LOGO_BOX.height]);
  });

  it('decodes in a child process: the event loop keeps ticking while three large logos are decoded', async () => {
    const preparer = createLogoPreparer();
    const large = await zeroPng({ width: 4000, height: 2000 }); // 8 MP RGBA: ~0.7 s of decoding each
    // For contrast, one of them decoded on the loop: the measure must see it.
    const onLoop = watchEventLoop();
    await new Promise((resolve) => setTimeout(resolve, 10));
    prepareLogo(large, 'image/png');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const blocked = onLoop.stop();
    expect(blocked.busyMs).toBeGreaterThan(50);

    const loop = watchEventLoop();
    let stalls;
    try {
      const done = await Promise.all([1, 2, 3].map(() => preparer.prepare(large, 'image/png')));
      expect(done.map((d) => [d.width, d.height])).toEqual([
        [800, 400],
        [800, 400],
        [800, 400],
      ]);
    } finally {
      stalls = loop.stop();
    }
    // Decoded on the loop, the three would keep its thread busy for their sum in one turn (~0.8 s
    // here, ~2 s on a slower machine); in child processes, only the forks and the answers run on it
    // (20 ms on a quiet machine, 160 ms seen at the loaded start of a run). The thread's CPU time is
    // bounded, not the wall time, which a loaded machine stretches whatever the code does
    // (test/support/event-loop-stalls.ts).
    const seen = `longest stall: ${stalls.busyMs.toFixed(0)} ms busy (${stalls.wallMs.toFixed(0)} ms wall); one decode on the loop: ${blocked.busyMs.toFixed(0)} ms`;
    expect(stalls.busyMs, seen).toBeLessThan(400);
  });

  it('answers 503 busy beyond its queue, and every file problem as the same LogoError', async () => {
    const preparer = createLogoPreparer({ concurrency: 1, maxQueue: 1 });
    const large = await zeroPng({ width: 2000, height: 2000 });
    const results = await Promise.allSettled([1, 2, 3].map(() => preparer.prepare(large, 'image/png')));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ kind: 'unavailable', code: 'busy', retryAfterSeconds: 5 });
    const truncated = png(20, 20).subarray(0, 40);
    await expect(preparer.prepare(truncated, 'image/png')).rejects.toMatchObject({ problem: { reason: 'undecodable' } });
    const corrupt = Buffer.from(png(64, 64));
    corrupt[corrupt.length - 20] = corrupt[corrupt.length - 20]! ^ 0xff;
    await expect(preparer.prepare(corrupt, 'image/png')).rejects.toBeInstanceOf(LogoError);
    expect(problem(() => prepareLogo(corrupt))).toBe('undecodable');
  });
});
