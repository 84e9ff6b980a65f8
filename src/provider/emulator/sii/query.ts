import type { FastifyInstance } from 'fastify';
import { toSiiRut, tryParseRut } from '../../../dte/index.ts';
import { emulatorStore } from '../store.ts';
import { siiRespuesta } from '../sii-format.ts';
import { DTE_STATES, NO_PERMISSION } from '../texts.ts';
import { DOCUMENT_TRIGGERS_SII } from '../sandbox.ts';
import { bodyText, handle, namespaceOf, siiRoute, type SiiFace } from './http.ts';
import { parseSoapRequest, soapAnswer, soapFault } from './soap.ts';
import { BAD_PARAMETERS, TOKEN_ERRORS } from './texts.ts';
import { QUERY_EST_DTE_PATH, QUERY_EST_UP_PATH } from '../../sii/query-status.ts';

/**
 * The DTEWS status queries (docs/sources.md §1.4), SOAP like the authentication services
 * (soap.ts), answering the SII's `SII:RESPUESTA` in the layout SimpleAPI relays it (sii-format.ts
 * siiRespuesta, recorded [C]):
 *  - QueryEstUp.getEstUp(Rut, Dv, TrackId, Token): counts only (RESP_HDR ESTADO/GLOSA/
 *    NUM_ATENCION/TRACKID, RESP_BODY TIPO_DOCTO/INFORMADOS/ACEPTADOS/RECHAZADOS/REPAROS per type,
 *    once processed), the same answer as the SimpleAPI face's consulta/envio (emulator.ts
 *    dteEnvioFor): unknown track id -11, another company's 106;
 *  - QueryEstDte.getEstDte(RutConsultante, DvConsultante, RutCompania, DvCompania, RutReceptor,
 *    DvReceptor, TipoDte, FolioDte, FechaEmisionDte ddMMyyyy, MontoDte, Token): DOK/DNK/FAU/FNA/FAN
 *    (emulator.ts documentState; a rejected document is FAU, never received);
 *  - the token first: 001 none given, 002 expired, 003 unknown (texts.ts TOKEN_ERRORS);
 *  - a holder without the "Enviar documentos" permission gets 106 on QueryEstUp, not at upload
 *    (§1.2, ruraldte COMO_CONTROLA_EL_SII; Odoo "Usuario sin permiso de envio"): the sandbox's
 *    holder names containing "SIN PERMISO" (sandbox.ts).
 */
const hdrOnly = (estado: string, glosa: string) =>
  siiRespuesta([
    ['ESTADO', estado],
    ['GLOSA', glosa],
  ]);
const rutOf = (rut: string | undefined, dv: string | undefined): string | undefined => {
  const r = `${rut ?? ''}-${dv ?? ''}`;
  return tryParseRut(r) ? toSiiRut(r) : undefined;
};
const int = (v: string | undefined) => (v !== undefined && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : undefined);

export function registerQueryRoutes(app: FastifyInstance, face: SiiFace) {
  const { core, auth } = face;

  const tokenRefusal = async (token: string | undefined): Promise<{ xml: string } | { holderName: string }> => {
    const t = await auth.check('soap', token?.trim() || undefined);
    if (t.ok) return { holderName: t.token.holder_name };
    const e = TOKEN_ERRORS[t.why];
    return { xml: hdrOnly(e.estado, e.glosa) };
  };

  app.post(
    QUERY_EST_UP_PATH,
    siiRoute('QueryEstUp'),
    handle(async (req) => {
      const call = parseSoapRequest(bodyText(req));
      if (!call || call.operation !== 'getEstUp') return soapFault('No such operation');
      const ns = namespaceOf(req);
      const p = call.params;
      const t = await tokenRefusal(p.Token);
      if ('xml' in t) return soapAnswer(ns, 'getEstUp', t.xml);
      if (DOCUMENT_TRIGGERS_SII.noPermission.test(t.holderName))
        return soapAnswer(ns, 'getEstUp', hdrOnly(NO_PERMISSION.estado, NO_PERMISSION.glosa));
      const rut = rutOf(p.Rut, p.Dv);
      const trackId = int(p.TrackId);
      if (!rut || trackId === undefined) return soapAnswer(ns, 'getEstUp', hdrOnly(BAD_PARAMETERS.estado, BAD_PARAMETERS.glosa));
      await core.ready();
      const envio = await emulatorStore.getEnvio(core.db, trackId);
      // An envelope or a book (books.ts: ESTADO LOK/LRH with its glosa, no per-type counts).
      const found = envio && (envio.tipo === 'dte' || envio.tipo === 'libro') ? envio : undefined;
      return soapAnswer(ns, 'getEstUp', core.dteEnvioFor(found, rut).responseXml ?? '');
    }),
  );

  app.post(
    QUERY_EST_DTE_PATH,
    siiRoute('QueryEstDte'),
    handle(async (req) => {
      const call = parseSoapRequest(bodyText(req));
      if (!call || call.operation !== 'getEstDte') return soapFault('No such operation');
      const ns = namespaceOf(req);
      const p = call.params;
      const t = await tokenRefusal(p.Token);
      if ('xml' in t) return soapAnswer(ns, 'getEstDte', t.xml);
      const rut = rutOf(p.RutCompania, p.DvCompania);
      const receptor = rutOf(p.RutReceptor, p.DvReceptor);
      const tipo = int(p.TipoDte);
      const folio = int(p.FolioDte);
      const monto = int(p.MontoDte);
      const f = /^(\d{2})(\d{2})(\d{4})$/.exec((p.FechaEmisionDte ?? '').trim());
      if (!rut || !receptor || tipo === undefined || folio === undefined || monto === undefined || !f) {
        return soapAnswer(ns, 'getEstDte', hdrOnly(BAD_PARAMETERS.estado, BAD_PARAMETERS.glosa));
      }
      await core.ready();
      const state = await core.documentState({ rut, tipo, folio, receptor, fecha: `${f[3]}-${f[2]}-${f[1]}`, monto });
      const s = DTE_STATES[state];
      // The same SII:RESPUESTA as the SimpleAPI face's consulta/dte relays [C "Consultar Estado DTE"].
      const xml = siiRespuesta([
        ['ESTADO', state],
        ['GLOSA_ESTADO', s.glosaEstado],
        ['ERR_CODE', s.errCode],
        ['GLOSA_ERR', s.glosaErr],
        ['NUM_ATENCION', null],
      ]);
      return soapAnswer(ns, 'getEstDte', xml);
    }),
  );
}
