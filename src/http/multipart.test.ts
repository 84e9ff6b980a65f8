import { describe, expect, it } from 'vitest';
import { parseMultipart } from './multipart.ts';

const ct = 'multipart/form-data; boundary=XyZ';
const body = (...parts: string[]) => Buffer.from(`${parts.join('')}--XyZ--\r\n`, 'latin1');
const field = (name: string, value: string) => `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string, filename: string, data: string) =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${data}\r\n`;

describe('multipart parser', () => {
  it('reads fields and files, bytes exact', () => {
    const bin = '\x00\x01\r\n--X\xff';
    const r = parseMultipart(body(field('a', 'uno'), file('f', 'c.pfx', bin), field('b', '')), ct, { maxFileBytes: 100 });
    expect(r.fields).toEqual({ a: 'uno', b: '' });
    expect(r.files.f!.filename).toBe('c.pfx');
    expect(r.files.f!.data.equals(Buffer.from(bin, 'latin1'))).toBe(true);
  });

  it('accepts a quoted boundary and an empty file', () => {
    const r = parseMultipart(body(file('f', 'e.pfx', '')), 'multipart/form-data; boundary="XyZ"', { maxFileBytes: 10 });
    expect(r.files.f!.data.length).toBe(0);
  });

  it.each([
    ['no boundary', body(field('a', '1')), 'multipart/form-data', /no boundary/],
    ['no closing delimiter', Buffer.from(field('a', '1')), ct, /truncated|malformed/],
    ['garbage', Buffer.from('hello'), ct, /no parts/],
    ['duplicate names', body(field('a', '1'), field('a', '2')), ct, /more than once/],
    ['a part without a name', body('--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n'), ct, /no form-data name/],
  ])('refuses %s', (_n, b, type, re) => {
    expect(() => parseMultipart(b, type, { maxFileBytes: 100 })).toThrow(re);
  });

  it('enforces the file, field and part limits', () => {
    expect(() => parseMultipart(body(file('f', 'a', 'x'.repeat(11))), ct, { maxFileBytes: 10 })).toThrow(
      expect.objectContaining({ code: 'file_too_large', param: 'f' }),
    );
    expect(() => parseMultipart(body(field('a', 'x'.repeat(20))), ct, { maxFileBytes: 10, maxFieldBytes: 10 })).toThrow(/too long/);
    const many = Array.from({ length: 6 }, (_, i) => field(`f${i}`, 'v'));
    expect(() => parseMultipart(body(...many), ct, { maxFileBytes: 10, maxParts: 5 })).toThrow(/more than 5 parts/);
  });
});
