import zlib from 'node:zlib';

/**
 * A ZIP archive of a few files held in memory (PKWARE APPNOTE 6.3: local headers, data, central
 * directory, end record), for downloads that are several files at once (docs/certification.md:
 * the printed samples, the exchange answers). Each file is deflated unless that makes it larger;
 * names are UTF-8 (flag bit 11). No ZIP64: an archive stays far below 4 GiB and 65,535 files,
 * which is checked rather than assumed.
 */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

const MAX_32 = 0xffff_ffff;
const UTF8_FLAG = 0x0800;

/** MS-DOS date and time (local fields, 2-second resolution), from the UTC wall clock given. */
function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
  };
}

export function buildZip(entries: readonly ZipEntry[], modified: Date): Buffer {
  if (entries.length > 0xffff) throw new Error('zip: too many entries');
  const { date, time } = dosDateTime(modified);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) throw new Error(`zip: duplicate entry ${e.name}`);
    names.add(e.name);
    const name = Buffer.from(e.name, 'utf8');
    const deflated = zlib.deflateRawSync(e.data, { level: 9 });
    const stored = deflated.length >= e.data.length;
    const body = stored ? e.data : deflated;
    const crc = zlib.crc32(e.data);
    if (e.data.length > MAX_32 || offset > MAX_32) throw new Error('zip: archive too large');

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(UTF8_FLAG, 6);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(UTF8_FLAG, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    // extra, comment, disk number, internal attributes: 0
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);

    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  if (offset > MAX_32) throw new Error('zip: archive too large');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
