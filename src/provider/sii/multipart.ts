import { randomBytes } from 'node:crypto';
import { splitRut } from '../../dte/index.ts';

/**
 * A multipart/form-data body built in one buffer, so it goes with a Content-Length and never
 * chunked: the SII's gateway truncates a chunked body at about 4 KB and answers
 * "CHR-00002 Line too long (4090)" (docs/sources.md §1.5, ruraldte, seen live). Fields in the order
 * given (the SII's example: rutSender, dvSender, rutCompany, dvCompany, archivo, §1.3).
 */
export interface MultipartFile {
  name: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export function multipartBody(fields: readonly (readonly [string, string])[], file: MultipartFile): { body: Buffer; contentType: string } {
  const boundary = `----dte${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'latin1'));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
      'latin1',
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1'),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The form of both uploads (DTEUpload §1.3 and the boleta REST envío §1.5), fields in the SII's
 * order: rutSender, dvSender (the certificate's holder), rutCompany, dvCompany (the issuer), then
 * the file `archivo`.
 */
export function siiUploadForm(rutCertificado: string, rutEmpresa: string, file: { filename: string; data: Buffer }) {
  const sender = splitRut(rutCertificado);
  const company = splitRut(rutEmpresa);
  return multipartBody(
    [
      ['rutSender', sender.rut],
      ['dvSender', sender.dv],
      ['rutCompany', company.rut],
      ['dvCompany', company.dv],
    ],
    { name: 'archivo', filename: file.filename, contentType: 'text/xml', data: file.data },
  );
}
