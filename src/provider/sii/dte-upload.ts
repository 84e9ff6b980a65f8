import type { Ambiente, UploadResult } from '../port.ts';
import { ProviderError } from '../port.ts';
import type { SiiCallContext, SiiCredentials } from './context.ts';
import { excerpt, siiRequest, tagText } from './http.ts';
import { siiUploadForm } from './multipart.ts';

/**
 * DTEUpload: an EnvioDTE to the SII (docs/sources.md §1.3; manual envio-automatico-dte-upload
 * OI2003_UPDTE_MDE 1.5): multipart rutSender, dvSender (the certificate's holder), rutCompany,
 * dvCompany (the issuer), archivo, in one buffer with its Content-Length (multipart.ts: a chunked
 * body is cut by the gateway), `Cookie: TOKEN=` (a SOAP token) and the User-Agent with "PROG 1.0"
 * (without it the SII answers HTML, manual fig. 2.3). The answer is RECEPCIONDTE; its STATUS:
 *  - 0 received → the TRACKID;
 *  - 99 the same file was received before → success with the earlier track id (ruraldte treats it
 *    as idempotent, §1.3 (ii)); the id is TRACKID, or the one its text names ("… con Trackid N");
 *  - 5 not authenticated → the token is dropped and the upload made once more with a fresh one;
 *  - 1 the sender may not send (permission) → `certificate_rejected`;
 *  - 2 size, 3 cut, 6 company not authorised, 7 schema, 8 signature → `rejected`, the SII's
 *    DETAIL/ERROR in the message;
 *  - 9 "Sistema Bloqueado", -1 and any other → `unavailable` (ask again later).
 * A transport failure (no answer, 5xx) is retried twice after 0.5 s × attempt (LibreDTE's pattern,
 * §1.3): safe because a repeated file is answered 99 with the first track id.
 */
export const DTE_UPLOAD_PATH = '/cgi_dte/UPL/DTEUpload';

const REFUSED: Record<string, string> = {
  '1': 'the certificate holder is not allowed to send documents for this company',
  '2': 'the file is too big or too small',
  '3': 'the file arrived cut',
  '6': 'the company is not authorised to send electronic documents',
  '7': 'the envelope does not follow the schema',
  '8': 'the envelope signature is wrong',
  '9': 'the SII system is blocked',
};

export interface RecepcionDte {
  status: string;
  trackId: string | undefined;
  errors: string[];
}

export function parseRecepcionDte(xml: string): RecepcionDte | undefined {
  if (!/<RECEPCIONDTE[\s>]/.test(xml)) return undefined;
  const status = tagText(xml, 'STATUS') ?? '';
  const track = tagText(xml, 'TRACKID');
  const errors = [...xml.matchAll(/<(ERROR|GLOSA)>([\s\S]*?)<\/\1\s*>/g)].map((m) => m[2]!.trim()).filter(Boolean);
  // A reason may also come as free text after STATUS (§1.3 (iii)).
  const after = xml
    .split(/<\/STATUS\s*>/)[1]
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (errors.length === 0 && after && !/^\d+$/.test(after)) errors.push(after);
  const fromText = /Trackid\s+(\d+)/i.exec(errors.join(' '))?.[1];
  const trackId = track && /^\d+$/.test(track) ? String(Number(track)) : fromText;
  return { status, trackId, errors };
}

async function attempt(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: { rutEmpresa: string; envelope: Buffer; ambiente: Ambiente; filename?: string },
  token: string,
) {
  const { body, contentType } = siiUploadForm(creds.rutCertificado, req.rutEmpresa, {
    filename: req.filename ?? 'EnvioDTE.xml',
    data: req.envelope,
  });
  return siiRequest(ctx, {
    service: 'dtews',
    ambiente: req.ambiente,
    operation: 'DTEUpload',
    path: DTE_UPLOAD_PATH,
    method: 'POST',
    // A buffer body: fetch sends it with its Content-Length, never chunked.
    headers: { 'Content-Type': contentType, Accept: '*/*', 'Cache-Control': 'no-cache' },
    body,
    token,
  });
}

/**
 * A book (LibroCompraVenta, LibroGuia) goes through the same DTEUpload (docs/sources.md §1.3:
 * "envío of EnvioDTE, books"), with the same form, token and STATUS handling; a reused
 * FolioNotificacion comes back as a refusal with "ENVIO NO REGISTRADO PARA LA EMPRESA" (docs/sources.md §1.4).
 */
export function uploadBook(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: { rutEmpresa: string; book: Buffer; ambiente: Ambiente },
): Promise<UploadResult> {
  return uploadDte(ctx, creds, { rutEmpresa: req.rutEmpresa, envelope: req.book, ambiente: req.ambiente, filename: 'Libro.xml' });
}

export async function uploadDte(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: { rutEmpresa: string; envelope: Buffer; ambiente: Ambiente; filename?: string },
): Promise<UploadResult> {
  let refreshed = false;
  for (let transport = 0; ;) {
    const token = await ctx.tokens.get('soap', creds, req.ambiente);
    let r;
    try {
      r = await attempt(ctx, creds, req, token);
    } catch (e) {
      if (e instanceof ProviderError && (e.kind === 'unavailable' || e.kind === 'timeout') && transport < 2) {
        transport++;
        await ctx.sleep(500 * transport);
        continue;
      }
      throw e;
    }
    const text = r.body.toString('latin1');
    if (r.status >= 500 && transport < 2) {
      transport++;
      await ctx.sleep(500 * transport);
      continue;
    }
    const a = r.status === 200 ? parseRecepcionDte(text) : undefined;
    if (!a) {
      throw new ProviderError(
        'unavailable',
        `The SII's DTEUpload answered HTTP ${r.status} without RECEPCIONDTE: ${excerpt(text, [token])}`,
        r.status,
      );
    }
    const detail = a.errors.join('; ');
    if (a.status === '0' || a.status === '99') {
      if (!a.trackId) throw new ProviderError('unavailable', `The SII's DTEUpload gave STATUS ${a.status} without a track id.`);
      return {
        trackId: a.trackId,
        estado: a.status,
        glosa: a.status === '0' ? 'Upload OK' : detail || 'Archivo ya recibido',
        raw: r.body,
      };
    }
    if (a.status === '5' && !refreshed) {
      ctx.tokens.invalidate('soap', creds, req.ambiente, token);
      refreshed = true;
      continue;
    }
    const why =
      a.status === '5' ? 'the SII does not accept the token (not authenticated)' : (REFUSED[a.status] ?? 'an internal error of the SII');
    const message = `The SII did not take the upload (STATUS ${a.status}: ${why})${detail ? `: ${excerpt(detail, [token])}` : ''}`;
    if (a.status === '1' || a.status === '5') throw new ProviderError('certificate_rejected', message);
    if (['2', '3', '6', '7', '8'].includes(a.status)) throw new ProviderError('rejected', message);
    throw new ProviderError('unavailable', message);
  }
}
