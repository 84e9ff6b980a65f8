import { AppError, errors } from '../errors.ts';

/**
 * A small, strict multipart/form-data parser over a body already read into memory.
 *
 * Why not @fastify/multipart: it reads the request's raw socket, bypassing the preParsing hooks,
 * so the Idempotency-Key hash (src/http/plugins/idempotency.ts) would not cover the upload. Here
 * Fastify buffers the body through those hooks (with its body limit), then this parses it.
 * Bounded: part count, header size, field and file sizes; duplicate names are refused.
 */
export interface MultipartFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: Record<string, MultipartFile>;
}

export interface MultipartLimits {
  maxParts?: number;
  maxFieldBytes?: number;
  maxFileBytes: number;
}

const invalid = (message: string, param?: string) => errors.invalid('invalid_multipart', message, param ? { param } : {});

export function boundaryOf(contentType: string | undefined): string {
  const m = /boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  const b = m?.[1] ?? m?.[2];
  if (!b) throw invalid('The Content-Type multipart/form-data header has no boundary.');
  return b;
}

const headerParam = (header: string, name: string): string | undefined => {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(header);
  const v = m?.[1] ?? m?.[2];
  return v?.replace(/\\(.)/g, '$1');
};

export function parseMultipart(body: Buffer, contentType: string | undefined, limits: MultipartLimits): MultipartBody {
  const maxParts = limits.maxParts ?? 20;
  const maxFieldBytes = limits.maxFieldBytes ?? 16 * 1024;
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const out: MultipartBody = { fields: {}, files: {} };
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw invalid('The multipart body has no parts.');
  let parts = 0;
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing delimiter "--"
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw invalid('The multipart body is malformed.');
    pos += 2;
    if (++parts > maxParts) throw invalid(`The multipart body has more than ${maxParts} parts.`);
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0 || headerEnd - pos > 4096) throw invalid('A multipart part has malformed headers.');
    const headers = body.subarray(pos, headerEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw invalid('The multipart body is truncated (no closing boundary).');
    const data = body.subarray(headerEnd + 4, next);
    pos = next + 2;
    const disposition = headers.find((h) => /^content-disposition:/i.test(h));
    const type = headers.find((h) => /^content-type:/i.test(h))?.replace(/^content-type:\s*/i, '') ?? '';
    const name = disposition && /^content-disposition:\s*form-data/i.test(disposition) ? headerParam(disposition, 'name') : undefined;
    if (!name) throw invalid('A multipart part has no form-data name.');
    if (name in out.fields || name in out.files) throw invalid(`The field '${name}' appears more than once.`, name);
    const filename = headerParam(disposition!, 'filename');
    if (filename !== undefined) {
      if (data.length > limits.maxFileBytes)
        throw new AppError(
          'too_large',
          'file_too_large',
          `The file '${name}' is larger than ${Math.floor(limits.maxFileBytes / 1024)} KiB.`,
          {
            param: name,
          },
        );
      out.files[name] = { filename, contentType: type, data: Buffer.from(data) };
    } else {
      if (data.length > maxFieldBytes) throw invalid(`The field '${name}' is too long.`, name);
      out.fields[name] = data.toString('utf8');
    }
  }
  return out;
}

export const isMultipartBody = (b: unknown): b is MultipartBody => typeof b === 'object' && b !== null && 'fields' in b && 'files' in b;
