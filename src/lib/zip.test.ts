import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readZip } from '../../test/support/zip.ts';
import { buildZip } from './zip.ts';

describe('buildZip', () => {
  const when = new Date('2026-11-28T21:30:14Z');

  it('round-trips text (deflated) and random bytes (stored), with UTF-8 names, in order', () => {
    const text = Buffer.from('<EnvioDTE>'.repeat(500), 'latin1');
    const noise = crypto.randomBytes(4096);
    const files = readZip(
      buildZip(
        [
          { name: 'CASO-1.pdf', data: text },
          { name: 'guía ñ.bin', data: noise },
        ],
        when,
      ),
    );
    expect(files.map((f) => [f.name, f.method])).toEqual([
      ['CASO-1.pdf', 8],
      ['guía ñ.bin', 0],
    ]);
    expect(files[0]!.data.equals(text)).toBe(true);
    expect(files[1]!.data.equals(noise)).toBe(true);
  });

  it('an empty archive is just the end record; an empty file is kept', () => {
    expect(buildZip([], when)).toHaveLength(22);
    expect(readZip(buildZip([{ name: 'a', data: Buffer.alloc(0) }], when))).toEqual([{ name: 'a', data: Buffer.alloc(0), method: 0 }]);
  });

  it('writes the modification time as MS-DOS date and time', () => {
    const zip = buildZip([{ name: 'a', data: Buffer.from('x') }], when);
    const time = zip.readUInt16LE(10);
    const date = zip.readUInt16LE(12);
    expect([(date >> 9) + 1980, (date >> 5) & 15, date & 31]).toEqual([2026, 11, 28]);
    expect([time >> 11, (time >> 5) & 63, (time & 31) * 2]).toEqual([21, 30, 14]);
  });

  it('refuses two entries with one name', () => {
    expect(() =>
      buildZip(
        [
          { name: 'a', data: Buffer.from('1') },
          { name: 'a', data: Buffer.from('2') },
        ],
        when,
      ),
    ).toThrow(/duplicate/);
  });
});
