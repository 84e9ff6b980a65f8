import type { FastifyInstance } from 'fastify';
import { computeDv } from '../../../dte/index.ts';
import { ACCIONES, CLAIMS_PATHS, parseRegistroRequest, soapFault, TOKEN_REFUSED, type RegistroRequest } from '../../sii/claims-protocol.ts';
import { REGISTRO_TIPOS, registroAccion, type EmulatorCore } from '../emulator.ts';
import { registroSoap } from '../sii-format.ts';
import { ensureEmulatorSchema } from '../store.ts';
import { REGISTRO_TEXT } from '../texts.ts';
import { tokenFromCookie, type SiiTokenCheck } from './token-check.ts';

/**
 * The SII's WsRegistroReclamoDte, operation ingresarAceptacionReclamoDoc, on both of its paths
 * (production and certification; claims-protocol.ts). The same registro as SimpleAPI's
 * compras/aceptacionreclamo (emulator.ts registroAccion: documents received here, the eight days,
 * the events table), so both faces agree on every document. In this order:
 *  1. Cookie TOKEN: a SOAP token this emulator issued and still valid, else a SOAP fault (ours,
 *     claims-protocol.ts soapFault: no source records this answer);
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

export function registerClaimsRoutes(app: FastifyInstance, core: EmulatorCore, checkToken: SiiTokenCheck): void {
  void app.register(async (scope) => {
    // SOAP 1.1 bodies: text/xml (encapsulated here, so other faces may read XML their own way).
    for (const type of ['text/xml', 'application/soap+xml']) {
      if (!scope.hasContentTypeParser(type))
        scope.addContentTypeParser(type, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    }
    for (const path of Object.values(CLAIMS_PATHS)) {
      scope.post(path, async (req, reply) => {
        const fault = (text: string) => reply.status(500).type(XML_TYPE).send(soapFault(text));
        const token = tokenFromCookie(req.headers.cookie);
        const who = token ? await checkToken('soap', token) : undefined;
        if (!who) return fault(TOKEN_REFUSED);
        const xml = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
        const r = parseRegistroRequest(xml);
        if (!r) return fault('Operacion no reconocida: se espera ingresarAceptacionReclamoDoc');
        const answer = (codigo: number, descripcion: string) => reply.status(200).type(XML_TYPE).send(registroSoap(codigo, descripcion));
        const pre = preliminaryCode(r);
        if (pre !== undefined) return answer(pre, REGISTRO_TEXT[pre as 1 | 2 | 3 | 4]);
        await ensureEmulatorSchema(core.db);
        const out = await registroAccion(core.db, {
          rut: `${Number(r.rutEmisor)}-${r.dvEmisor}`,
          tipo: Number(r.tipoDoc),
          folio: Number(r.folio),
          accion: r.accionDoc,
          by: who.rut,
          now: core.clock.now(),
        });
        return answer(out.codigo, out.descripcion);
      });
    }
  });
}
