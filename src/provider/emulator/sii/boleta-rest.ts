import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toSiiRut, tryParseRut } from '../../../dte/index.ts';
import {
  BOLETA_ENVIO_PATH,
  BOLETA_REFUSAL,
  CHUNKED_TRUNCATED,
  countDtes,
  isGatewayUserAgent,
  MAX_BOLETAS_PER_ENVIO,
  NOT_AUTHENTICATED,
  type BoletaDetalleRepRech,
  type BoletaEnvioStatusAnswer,
  type BoletaRefusal,
} from '../../sii/boleta-protocol.ts';
import { boletaDetalle, envelopeStage } from '../emulator.ts';
import { DOCUMENT_TRIGGERS_SII } from '../sandbox.ts';
import { jsonReply, textReply, type Reply } from '../reply.ts';
import { boletaReception, chileSlashed, chileSpaced } from '../sii-format.ts';
import { emulatorStore, ensureEmulatorSchema, type EmuEnvioRow } from '../store.ts';
import { BOLETA_NO_PERMISSION } from '../texts.ts';
import { cookieToken } from './auth.ts';
import { handle, siiRoute, type SiiFace } from './http.ts';

/**
 * The SII's boleta REST envío and its status, on the SII's own paths (docs/sources.md §1.5;
 * boleta-protocol.ts holds the shapes and texts both sides use). The envelope goes through the
 * same reception, judging, storage and stages as SimpleAPI's envio/enviar (emulator.ts
 * receiveEnvelope, envelopeStage), so an envío looks the same whichever face took it.
 *
 * Upload, in this order (each step's source in boleta-protocol.ts and docs/emulator.md):
 *  1. User-Agent in the Mozilla format, else 401 NO ESTA AUTENTICADO (the gateway's quirk);
 *  2. Cookie TOKEN: a REST token this emulator issued and still valid, else 401;
 *  3. a chunked body longer than the gateway keeps (4090) → 400 CHR-00002;
 *  4. the form (rutSender, dvSender, rutCompany, dvCompany, archivo), the RUTs, the token holder
 *     as rutSender, an EnvioBOLETA of at most 500 boletas of rutCompany → else 400;
 *  5. HTTP 200 `{rut_emisor, rut_envia, trackid, fecha_recepcion, estado:"REC", file}`.
 */

/** The gateway keeps about 4 KB of a chunked body (docs/sources.md §1.5: "Line too long (4090)"). */
export const CHUNKED_KEEPS = 4090;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const refusal = (status: number, error: string): Reply => jsonReply(status, { error } satisfies BoletaRefusal);

async function readBody(req: FastifyRequest): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req.raw) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c as string);
    size += b.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

interface UploadForm {
  fields: Record<string, string>;
  file: { data: Buffer; filename: string } | undefined;
}

/** The multipart form, parsed by the platform's own reader (the body was read whole first, to see its length). */
async function parseForm(body: Buffer, contentType: string | undefined): Promise<UploadForm | undefined> {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return undefined;
  try {
    const fd = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    const fields: Record<string, string> = {};
    let file: UploadForm['file'];
    for (const [name, v] of fd.entries()) {
      if (typeof v === 'string') fields[name] = v;
      else if (name === 'archivo') file = { data: Buffer.from(await v.arrayBuffer()), filename: v.name };
    }
    return { fields, file };
  } catch {
    return undefined;
  }
}

const rutOf = (rut: string | undefined, dv: string | undefined): string | undefined => {
  if (!rut || !dv || !/^\d{1,8}$/.test(rut.trim())) return undefined;
  const r = tryParseRut(`${rut.trim()}-${dv.trim()}`);
  return r ? `${r.body}-${r.dv}` : undefined;
};

/** The status answer from the stored envío (stage while processing; counts and findings once EPR). */
export function boletaStatusAnswer(envio: EmuEnvioRow, now: Date): BoletaEnvioStatusAnswer {
  const stage = envelopeStage(envio, now);
  const estado = stage?.estado ?? envio.estado;
  const processed = estado === 'EPR';
  const wholeRejection = !stage && !processed;
  let detalle: BoletaDetalleRepRech[] = [];
  if (processed) {
    detalle = envio.detalle
      .filter((d) => d.estado === 'RCH' || d.estado === 'RPR' || d.estado === 'RLV')
      .map((d) => {
        const b = boletaDetalle(d);
        return { tipo: b.tipo, folio: b.folio, estado: b.estado, descripcion: b.descripcion, error: b.errores };
      });
  } else if (wholeRejection) {
    // The whole envío rejected: one entry without folio (Odoo reads `folio` null + RCH so,
    // docs/sources.md §9.6); its finding carries the envelope's state and reason (ours).
    detalle = [
      {
        tipo: null,
        folio: null,
        estado: 'RCH',
        descripcion: envio.glosa,
        error: [{ seccion: envio.estado, linea: 0, nivel: 3, codigo: 0, descripcion: envio.glosa, detalle: null }],
      },
    ];
  }
  return {
    rut_emisor: envio.rut_emisor,
    rut_envia: envio.rut_envia,
    trackid: envio.track_id,
    fecha_recepcion: chileSlashed(envio.received_at),
    estado,
    // Built member by member: jsonb does not keep the order of keys.
    estadistica: processed
      ? envio.estadistica.map((s) => ({
          tipo: s.tipo,
          informados: s.informados,
          aceptados: s.aceptados,
          rechazados: s.rechazados,
          reparos: s.reparos,
        }))
      : [],
    detalle_rep_rech: detalle,
  };
}

/**
 * The REST token a call carries, checked (and renewed by its use, auth.ts); the holder's RUT, or
 * undefined when there is none or it is unknown, of the other kind or expired.
 */
async function holder(face: SiiFace, req: FastifyRequest): Promise<{ rut: string; name: string } | undefined> {
  const v = await face.auth.check('rest', cookieToken(req.headers.cookie));
  return v.ok ? { rut: v.token.rut ?? '', name: v.token.holder_name } : undefined;
}

const notAuthenticated = () => textReply(401, NOT_AUTHENTICATED);

export function registerBoletaRestRoutes(app: FastifyInstance, face: SiiFace): void {
  const { core } = face;

  app.post(
    BOLETA_ENVIO_PATH,
    siiRoute('boleta.electronica.envio'),
    handle(async (req) => {
      if (!isGatewayUserAgent(req.headers['user-agent'])) return notAuthenticated();
      const who = await holder(face, req);
      if (who === undefined) return notAuthenticated();
      const body = await readBody(req);
      if (!body) return refusal(413, BOLETA_REFUSAL.missingFields);
      const chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? ''));
      if (chunked && body.length > CHUNKED_KEEPS) return textReply(400, CHUNKED_TRUNCATED);
      const form = await parseForm(body, req.headers['content-type']);
      const f = form?.fields ?? {};
      if (!form?.file || !f.rutSender || !f.dvSender || !f.rutCompany || !f.dvCompany) return refusal(400, BOLETA_REFUSAL.missingFields);
      const sender = rutOf(f.rutSender, f.dvSender);
      const company = rutOf(f.rutCompany, f.dvCompany);
      if (!sender || !company) return refusal(400, BOLETA_REFUSAL.badRut);
      if (!tryParseRut(who.rut) || toSiiRut(who.rut) !== sender) return refusal(400, BOLETA_REFUSAL.senderNotToken);
      const data = form.file.data;
      if (data.length === 0) return refusal(400, BOLETA_REFUSAL.empty);
      const raw = data.toString('latin1');
      if (!/<(?:\w+:)?EnvioBOLETA[\s>]/.test(raw)) return refusal(400, BOLETA_REFUSAL.notEnvioBoleta);
      const n = countDtes(data);
      if (n > MAX_BOLETAS_PER_ENVIO) return refusal(400, BOLETA_REFUSAL.tooMany(n));
      const inFile = /<RutEmisor>\s*([^<\s]+)\s*<\/RutEmisor>/.exec(raw)?.[1];
      if (!inFile || !tryParseRut(inFile) || toSiiRut(inFile) !== company) return refusal(400, BOLETA_REFUSAL.companyNotFile);

      const now = core.clock.now();
      const got = await core.receiveEnvelope({ data, tipo: 'boleta', rutUploader: sender, rutInFile: inFile, now });
      // The SII's own layout, as SimpleAPI relays it [C "Enviar EnvioBoleta"] (sii-format.ts).
      const text = boletaReception({
        rutEmisor: got.rutEmpresa,
        rutEnvia: sender,
        trackId: got.trackId,
        fechaRecepcion: chileSpaced(now),
        file: form.file.filename || 'envio.xml',
      });
      return { status: 200, contentType: 'application/json', body: Buffer.from(text, 'utf8') };
    }),
  );

  app.get<{ Params: { id: string } }>(
    `${BOLETA_ENVIO_PATH}/:id`,
    siiRoute('boleta.electronica.envio/:id'),
    handle(async (req) => {
      const who = await holder(face, req);
      if (who === undefined) return notAuthenticated();
      // Sandbox: a holder without permission (sandbox.ts) is refused in the words SimpleAPI relays
      // from the boleta server [C "Usuario sin permiso en el SII"]; the status 403 is ours.
      if (DOCUMENT_TRIGGERS_SII.noPermission.test(who.name)) return refusal(403, BOLETA_NO_PERMISSION);
      const m = /^(\d{1,8})-([\dkK])-(\d{1,15})$/.exec((req.params as { id: string }).id);
      const rut = m ? rutOf(m[1], m[2]) : undefined;
      if (!m || !rut) return refusal(400, BOLETA_REFUSAL.badId);
      await ensureEmulatorSchema(core.db);
      const envio = await emulatorStore.getEnvio(core.db, Number(m[3]));
      // The boleta server keeps its own envíos: an EnvioDTE's track id is not found here.
      if (!envio || envio.tipo !== 'boleta' || envio.rut_emisor !== rut) return refusal(404, BOLETA_REFUSAL.unknownTrack);
      return jsonReply(200, boletaStatusAnswer(envio, core.clock.now()));
    }),
  );
}
