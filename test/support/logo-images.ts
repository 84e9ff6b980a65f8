import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jpeg from 'jpeg-js';

/** A smooth 8-bit JPEG, as a scan or an exported logo would be (a 4000 × 4000 one fits the 512 KiB upload limit). */
function encodeGradientJpg(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([(x >> 4) & 0xff, (y >> 4) & 0xff, 128], (y * width + x) * 4);
  return jpeg.encode({ width, height, data }, 80).data;
}

/**
 * The gradient JPEG of this size, encoded once and kept in the system's temporary folder: encoding a
 * 4000 × 4000 one in JavaScript takes ~3 s of CPU, and the logo tests (unit and HTTP, on each
 * database) ask for the same few sizes (docs/performance.md, "Eighth round"). The file's name
 * carries a hash of the encoder's code, so a changed encoder makes new files.
 */
export function gradientJpg(width: number, height: number): Buffer {
  const version = crypto.createHash('sha256').update(encodeGradientJpg.toString()).digest('hex').slice(0, 12);
  const file = path.join(os.tmpdir(), `dte-test-gradient-${version}-${width}x${height}.jpg`);
  const kept = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  // A JPEG ends with EOI (FF D9): a file cut short by a crash is made again.
  if (kept && kept.length > 2 && kept.readUInt16BE(kept.length - 2) === 0xffd9) return kept;
  const made = encodeGradientJpg(width, height);
  const staging = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(staging, made);
  fs.renameSync(staging, file);
  return made;
}
