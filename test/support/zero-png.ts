import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import zlib from 'node:zlib';

/**
 * Valid PNG files whose pixels are all zero, written without pngjs and without holding the
 * pixels: the rows are deflated as a stream, so a 4000 × 4000 16-bit RGBA file (128 MB of
 * pixels) is built in a few MB — the "logo bomb" of issue 30 (124 KB on disk). Also used where a
 * process must not load pngjs itself (test/tooling/startup-modules.child.ts).
 */
export interface ZeroPngOptions {
  width: number;
  height: number;
  /** 8 or 16. */
  bitDepth?: 8 | 16;
  /** PNG colour type: 2 RGB, 6 RGBA (default). */
  colorType?: 2 | 6;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export async function zeroPng({ width, height, bitDepth = 8, colorType = 6 }: ZeroPngOptions): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colorType;
  const row = Buffer.alloc(1 + width * (colorType === 6 ? 4 : 3) * (bitDepth / 8)); // filter byte 0, then zeros
  const rows = Readable.from(
    (function* () {
      for (let y = 0; y < height; y++) yield row;
    })(),
  );
  const idat = await buffer(rows.pipe(zlib.createDeflate({ level: 9 })));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
