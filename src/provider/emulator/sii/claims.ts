import type { FastifyInstance } from 'fastify';
import { computeDv } from '../../../dte/index.ts';
import { ACCIONES, CLAIMS_PATHS, parseRegistroRequest, soapFault, TOKEN_REFUSED, type RegistroRequest } from '../../sii/claims-protocol.ts';
import { REGISTRO_TIPOS, registroAccion } from '../emulator.ts';
import { registroSoap } from '../sii-format.ts';
import { ensureEmulatorSchema } from '../store.ts';
import { REGISTRO_TEXT } from '../texts.ts';
import { cookieToken } from './auth.ts';
import { handle, siiRoute, type SiiFace } from './http.ts';

/**
 * The SII's WsRegistroReclamoDte, operation ingresarAceptacionReclamoDoc, on both of its paths
 * (production and certification; claims-protocol.ts). The same registro as SimpleAPI's
 * compras/aceptacionreclamo (emulator.ts registroAccion: documents received here, the eight days,
 * the events table), so both faces agree on every document. In this order:
 *  1. Cookie TOKEN: a SOAP token this emulator issued and still valid (auth.ts), else a SOAP fault
 *     (ours, claims-protocol.ts soapFault: no source records this answer);
 *  2. the body is the operation, else a fault (ours);
 *  3. the manual's checks, in its order: rutEmisor (numeric, at least 1000, its module-11 digit,
 *     K in capitals) → 1; folio → 2; tipoDoc 33/34/43 → 3; accionDoc → 4;
 *  4. registroAccion: 9 not received, 8 past eight days, then the events before (0, 6, 7, 11–13).
 * The answer is HTTP 200 with codResp/descResp in the bytes SimpleAPI relays [C]. Who may act for
 * the receptor (codes 14, 17) is not modelled, as on the SimpleAPI face.
 */
const XML_TYPE = 'text/xml; charset=utf-8';

function preliminaryCode(r: RegistroRequest): number | undefined {
  const body = /^\d{1,8}$/.test(r.rutEmisor) ? Number(r.rutEmisor) : NaN;
  if (!(body >= 1000) || r.dvEmisor !== computeDv(body)) return 1;
  if (!/^\d{1,10}$/.test(r.folio) || Number(r.folio) < 1) return 2;
  if (!/^\d{1,2}$/.test(r.tipoDoc) || !REGISTRO_TIPOS.has(Number(r.tipoDoc))) return 3;
  if (!(ACCIONES as readonly string[]).includes(r.accionDoc)) return 4;
  return undefined;
}

const xml = (status: number, text: string) => ({ status, contentType: XML_TYPE, body: Buffer.from(text, 'utf8') });

/** The operation on both paths; SOAP bodies are read as bytes by the face's XML parser (routes.ts). */
export function registerClaimsRoutes(app: FastifyInstance, face: SiiFace): void {
  const { core } = face;
  for (const path of Object.values(CLAIMS_PATHS)) {
    app.post(
      path,
      siiRoute('ingresarAceptacionReclamoDoc'),
      handle(async (req) => {
        const v = await face.auth.check('soap', cookieToken(req.headers.cookie));
        if (!v.ok) return xml(500, soapFault(TOKEN_REFUSED));
        const r = parseRegistroRequest(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
        if (!r) return xml(500, soapFault('Operacion no reconocida: se espera ingresarAceptacionReclamoDoc'));
        const pre = preliminaryCode(r);
        if (pre !== undefined) return xml(200, registroSoap(pre, REGISTRO_TEXT[pre as 1 | 2 | 3 | 4]));
        await ensureEmulatorSchema(core.db);
        const out = await registroAccion(core.db, {
          rut: `${Number(r.rutEmisor)}-${r.dvEmisor}`,
          tipo: Number(r.tipoDoc),
          folio: Number(r.folio),
          accion: r.accionDoc,
          by: v.token.rut,
          now: core.clock.now(),
        });
        return xml(200, registroSoap(out.codigo, out.descripcion));
      }),
    );
  }
}
