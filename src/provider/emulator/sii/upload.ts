import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toSiiRut, tryParseRut } from '../../../dte/index.ts';
import type { Reply } from '../reply.ts';
import { chileSpaced, recepcionDte } from '../sii-format.ts';
import { cookieToken } from './auth.ts';
import { handle, siiRoute, type SiiFace } from './http.ts';
import { DUPLICATE_WINDOW_S, UPLOAD_ERROR, UPLOAD_STATUS } from './texts.ts';
import { DTE_UPLOAD_PATH } from '../../sii/dte-upload.ts';
import { receiveBook } from './books.ts';

/**
 * DTEUpload (`POST /cgi_dte/UPL/DTEUpload`; envio-automatico-dte-upload OI2003_UPDTE_MDE 1.5,
 * docs/sources.md §1.3): multipart rutSender, dvSender, rutCompany, dvCompany, archivo, with
 * `Cookie: TOKEN=` and a browser-like User-Agent. Answers HTTP 200 with RECEPCIONDTE whatever the
 * STATUS. Checked in this order (the order is ours; the manual lists the codes, not their order):
 *  1. the User-Agent must carry "PROG 1.0": "permitirá que el formato de salida sea en un XML"
 *     (manual §2, fig. 2.3 note); without it the answer is the browser's HTML page (its content ours);
 *  2. a chunked body (no Content-Length) over 4 KB is cut (§1.5: the gateway truncates chunked
 *     bodies at about 4 KB, seen live) → STATUS 3 "Archivo cortado";
 *  3. the token (SOAP kind) → STATUS 5 "No está autenticado" (fig. 2.2: no DETAIL);
 *  4. rutSender must be the token's holder → STATUS 1 "El Sender no tiene permiso para enviar";
 *  5. rutCompany a valid RUT → else STATUS 6 "Empresa no autorizada a enviar archivos";
 *  6. the file present and not empty → else STATUS 2;
 *  7. a book (LibroCompraVenta, LibroGuia) → books.ts (STATUS 0, 6, 7, 8 or 99; review LOK/LRH);
 *     an EnvioDTE → else STATUS 7 "Esquema Invalido" (a file the parser cannot name, §1.3 (i));
 *  8. the same bytes for the same company within 900 s → STATUS 99 with the earlier TRACKID and
 *     "Archivo ya fue enviado N veces con Trackid X. Debe esperar 900 segundos" (§1.3 (ii));
 *  9. else received (emulator.ts receiveEnvelope: the same review as the SimpleAPI face) →
 *     STATUS 0 and a TRACKID; schema, signature and carátula errors show in QueryEstUp (RSC, RFR,
 *     RCT), as do the line-length rule (review.ts) and the documents' verdicts.
 * Who may send for which company beyond the RUT check is not modelled here: the SII reports a
 * holder without the "Enviar documentos" permission in the status query (106, §1.2), and so does
 * the emulator (query.ts, sandbox holder names).
 */
const MAX_FILE = 64 * 1024 * 1024;
/** Where a chunked body is cut (§1.5: "about 4 KB"; "Line too long (4090)"). */
const CHUNKED_CUT = 4096;

const HTML_ANSWER =
  '<html><head><title>SII - Envio de DTE</title></head><body><p>Documento recibido. Para recibir la respuesta en XML ' +
  'el programa cliente debe identificarse como "PROG 1.0" en su User-Agent.</p></body></html>';

interface UploadForm {
  fields: Record<string, string>;
  file: { data: Buffer; filename: string } | undefined;
}

async function readForm(req: FastifyRequest): Promise<UploadForm> {
  const fields: Record<string, string> = {};
  let file: UploadForm['file'];
  if (!req.isMultipart()) return { fields, file };
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (!file) file = { data, filename: part.filename ?? '' };
    } else fields[part.fieldname] = String(part.value);
  }
  return { fields, file };
}

export function registerUploadRoute(app: FastifyInstance, face: SiiFace) {
  const { core, auth } = face;
  app.post(
    DTE_UPLOAD_PATH,
    { ...siiRoute('DTEUpload'), bodyLimit: MAX_FILE + 64 * 1024 },
    handle(async (req) => {
      const now = core.clock.now();
      const ua = req.headers['user-agent'] ?? '';
      let form: UploadForm;
      try {
        form = await readForm(req);
      } catch {
        form = { fields: {}, file: undefined };
      }
      const f = form.fields;
      const sender = `${f.rutSender ?? ''}-${f.dvSender ?? ''}`;
      const company = `${f.rutCompany ?? ''}-${f.dvCompany ?? ''}`;
      const answer = (status: string, o: { trackId?: number; error?: string } = {}): Reply => {
        const xml = recepcionDte({
          rutSender: sender,
          rutCompany: company,
          file: form.file?.filename ?? '',
          timestamp: chileSpaced(now),
          status,
          ...(o.trackId !== undefined ? { trackId: o.trackId } : {}),
          ...(o.error !== undefined ? { error: o.error } : {}),
        });
        // Neither a track id nor an error (STATUS 5, fig. 2.2): no DETAIL either.
        const body = o.trackId === undefined && o.error === undefined ? xml.replace(/ <DETAIL>[\s\S]*<\/DETAIL>\n/, '') : xml;
        return { status: 200, contentType: 'text/xml; charset=ISO-8859-1', body: Buffer.from(body, 'latin1') };
      };
      if (!/PROG 1\.0/.test(ua))
        return { status: 200, contentType: 'text/html; charset=ISO-8859-1', body: Buffer.from(HTML_ANSWER, 'latin1') };
      const chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? '')) || req.headers['content-length'] === undefined;
      if (chunked && (form.file?.data.length ?? 0) > CHUNKED_CUT) return answer(UPLOAD_STATUS.cut, { error: UPLOAD_ERROR.cut });

      const token = await auth.check('soap', cookieToken(req.headers.cookie));
      // Fig. 2.2: STATUS 5 comes without DETAIL.
      if (!token.ok) return answer(UPLOAD_STATUS.notAuthenticated);
      const holder = token.token.rut ?? '';
      if (!tryParseRut(sender) || toSiiRut(sender) !== holder) {
        return answer(UPLOAD_STATUS.noPermission, { error: UPLOAD_ERROR.noPermission(sender, holder) });
      }
      if (!tryParseRut(company)) return answer(UPLOAD_STATUS.company, { error: UPLOAD_ERROR.company(company) });
      const data = form.file?.data;
      if (!data || data.length === 0) return answer(UPLOAD_STATUS.size, { error: UPLOAD_ERROR.empty });
      if (data.length > MAX_FILE) return answer(UPLOAD_STATUS.size, { error: UPLOAD_ERROR.tooBig });
      const raw = data.toString('latin1');
      if (/^(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*<(?:\w+:)?Libro(?:CompraVenta|Guia)[\s>]/.test(raw)) {
        await core.ready();
        const b = await receiveBook(core, {
          data,
          company: toSiiRut(company),
          now,
          dedupSince: new Date(now.getTime() - DUPLICATE_WINDOW_S * 1000),
        });
        if (b.status === UPLOAD_STATUS.duplicate && b.trackId !== undefined)
          return answer(b.status, { trackId: b.trackId, error: UPLOAD_ERROR.duplicate(b.sends ?? 1, b.trackId, DUPLICATE_WINDOW_S) });
        return answer(b.status, {
          ...(b.trackId !== undefined ? { trackId: b.trackId } : {}),
          ...(b.error !== undefined ? { error: b.error } : {}),
        });
      }
      const rutInFile = /<RutEmisor>\s*([^<\s]+)\s*<\/RutEmisor>/.exec(raw)?.[1];
      if (!/<(?:\w+:)?EnvioDTE[\s>]/.test(raw) || !rutInFile) return answer(UPLOAD_STATUS.schema, { error: UPLOAD_ERROR.notEnvelope });

      await core.ready();
      const r = await core.receiveEnvelope({
        data,
        tipo: 'dte',
        rutUploader: holder,
        rutInFile,
        now,
        dedupSince: new Date(now.getTime() - DUPLICATE_WINDOW_S * 1000),
      });
      if (r.duplicate) {
        return answer(UPLOAD_STATUS.duplicate, {
          trackId: r.trackId,
          error: UPLOAD_ERROR.duplicate(r.duplicate.sends, r.trackId, DUPLICATE_WINDOW_S),
        });
      }
      return answer(UPLOAD_STATUS.ok, { trackId: r.trackId });
    }),
  );
}
