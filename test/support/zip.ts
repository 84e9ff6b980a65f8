import zlib from 'node:zlib';

/**
 * Test-only: reads a ZIP the way an unzip tool does, from its central directory (APPNOTE 6.3),
 * sharing no code with the writer (src/lib/zip.ts): each file's local header is cross-checked
 * against the directory, its data inflated, its size and CRC-32 verified.
 */
export interface UnzippedFile {
  name: string;
  data: Buffer;
  method: number;
}

export function readZip(zip: Buffer): UnzippedFile[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > zip.length) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  const dirSize = zip.readUInt32LE(eocd + 12);
  let p = zip.readUInt32LE(eocd + 16);
  if (p + dirSize !== eocd) throw new Error('central directory does not end where the end record starts');
  const files: UnzippedFile[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error(`central header ${i} has a bad signature`);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const compressed = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const localAt = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;

    if (zip.readUInt32LE(localAt) !== 0x04034b50) throw new Error(`${name}: local header has a bad signature`);
    const localName = zip.subarray(localAt + 30, localAt + 30 + zip.readUInt16LE(localAt + 26)).toString('utf8');
    if (localName !== name) throw new Error(`${name}: local header names ${localName}`);
    if (zip.readUInt32LE(localAt + 14) !== crc) throw new Error(`${name}: local and central CRC differ`);
    const start = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const raw = zip.subarray(start, start + compressed);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? zlib.inflateRawSync(raw) : null;
    if (!data) throw new Error(`${name}: unknown method ${method}`);
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, directory says ${size}`);
    if (zlib.crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    files.push({ name, data, method });
  }
  return files;
}
