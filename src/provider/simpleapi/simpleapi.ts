import type { AcceptanceRegistration, DocumentOutcome, Provider, ProviderCredentials, UploadStatus } from '../port.ts';
import { ProviderError } from '../port.ts';
import { isBoleta } from '../../dte/index.ts';
import { createSimpleApiClient, excerpt, type FilePart, type SimpleApiClientOptions } from './client.ts';
import {
  ambienteCode,
  FAILED_TRACK_ID,
  FINAL_ENVELOPE_STATES,
  ROUTES,
  REGISTRO_ALREADY,
  REGISTRO_OK,
  REGISTRO_RETRY,
  type AceptacionReclamoInput,
  type AceptacionReclamoResponse,
  type AnnulEntry,
  type DteStatusResponse,
  type EnvioBoletaStatusResponse,
  type EnvioDteStatusResponse,
  type EnvioResponse,
  type Host,
} from './protocol.ts';

/**
 * The `simpleapi` adapter: the Provider port over SimpleAPI's published protocol (protocol.ts,
 * with the source of every route and shape). SimpleAPI stores nothing, so every call carries the
 * tenant's .pfx, its password and the holder's RUT; they arrive decrypted in `creds` for this one
 * call and are never kept here.
 *
 * Every call first takes a slot from the pacer (per key and host, shared across processes), so the
 * documented rate limits are kept; a 429 that happens anyway blocks the key for its Retry-After and
 * the call is made again. A wait longer than the pacer allows surfaces as `rate_limited` with the
 * time to wait: jobs reschedule on it, the API answers 503 with Retry-After. Never a failure.
 */
export type SimpleApiProviderOptions = SimpleApiClientOptions;

const ANNUL_REASON = 'Folios no utilizados';

/** The SII's annulment answers that mean the folios are annulled [C "Anulacion", 400]. */
const ALREADY_ANNULLED = /ya ha sido efectuado anteriormente/i;

export function createSimpleApiProvider(opts: SimpleApiProviderOptions): Provider {
  const client = createSimpleApiClient(opts);

  const cert = (creds: ProviderCredentials) => {
    if (!creds.pfx || creds.pfxPassword === undefined || !creds.rutCertificado) {
      throw new Error('SimpleAPI calls need the tenant certificate (pfx, pfxPassword, rutCertificado)');
    }
    return { pfx: creds.pfx, password: creds.pfxPassword, rut: creds.rutCertificado };
  };
  const pfxPart = (pfx: Buffer): FilePart => ({ name: 'certificado.pfx', data: pfx, type: 'application/x-pkcs12' });

  const json = <T>(body: Buffer, what: string, secrets: string[]): T => {
    try {
      return JSON.parse(body.toString('utf8')) as T;
    } catch {
      throw new ProviderError(
        'unavailable',
        `The billing provider answered ${what} with something that is not JSON: ${excerpt(body, secrets)}`,
      );
    }
  };

  /**
   * An empty 401 means a bad key *or* a certificate the SII refused (D9). The subscription status
   * costs no quota and needs only the key: if it answers, the key is fine and the certificate is
   * at fault.
   */
  const disambiguate = async (e: unknown, apiKey: string): Promise<never> => {
    if (!(e instanceof ProviderError) || !(e as { emptyUnauthorized?: boolean }).emptyUnauthorized) throw e;
    try {
      await client.request({ host: 'api', method: 'GET', path: ROUTES.subscription, apiKey, idempotent: true });
    } catch (check) {
      // The check itself could not run (rate limit, outage, timeout): that is the answer for now,
      // not a verdict on the key.
      if (check instanceof ProviderError && check.transient) throw check;
      throw e;
    }
    throw new ProviderError('certificate_rejected', 'The billing provider accepted the API key but refused the certificate.', 401);
  };

  const post = async (
    creds: ProviderCredentials,
    host: Host,
    path: string,
    input: unknown,
    opt: { idempotent: boolean; files?: FilePart[]; answerStatuses?: number[] },
  ) => {
    const c = cert(creds);
    try {
      return await client.request({
        host,
        method: 'POST',
        path,
        apiKey: creds.apiKey,
        input,
        files: [pfxPart(c.pfx), ...(opt.files ?? [])],
        idempotent: opt.idempotent,
        secrets: [c.password],
        ...(opt.answerStatuses ? { answerStatuses: opt.answerStatuses } : {}),
      });
    } catch (e) {
      return disambiguate(e, creds.apiKey);
    }
  };

  const certificado = (creds: ProviderCredentials) => {
    const c = cert(creds);
    return { Rut: c.rut, Password: c.password };
  };
  const foliosInput = (creds: ProviderCredentials, rutEmpresa: string, ambiente: 0 | 1) => {
    const c = cert(creds);
    return { RutCertificado: c.rut, Password: c.password, RutEmpresa: rutEmpresa, Ambiente: ambiente };
  };

  return {
    name: 'simpleapi',

    async verifyApiKey(apiKey) {
      const r = await client.request({ host: 'api', method: 'GET', path: ROUTES.subscription, apiKey, idempotent: true });
      // A 2xx is what proves the key; the body's shape ([{servicio, uso, maximo}]) is known from D9
      // only (the collection records no answer), so another shape still means a valid key, with the
      // plan's figures unknown.
      const items = json<unknown>(r.body, 'the subscription status', [apiKey]);
      if (!Array.isArray(items)) return { quota: [] };
      return {
        quota: items.map((i: { servicio?: unknown; uso?: unknown; maximo?: unknown }) => ({
          servicio: String(i.servicio ?? ''),
          uso: Number(i.uso ?? 0),
          maximo: Number(i.maximo ?? 0),
        })),
      };
    },

    async requestCaf(creds, req) {
      const input = foliosInput(creds, req.rutEmpresa, ambienteCode(req.ambiente));
      const r = await post(creds, 'servicios', ROUTES.folios(req.tipoDte, req.cantidad), input, { idempotent: false });
      if (!/<AUTORIZACION[\s>]/.test(r.body.toString('latin1'))) {
        throw new ProviderError(
          'rejected',
          `The billing provider did not return a CAF: ${excerpt(r.body, [input.Password, creds.apiKey])}`,
        );
      }
      return { cafXml: r.body };
    },

    async upload(creds, req) {
      const input = { Certificado: certificado(creds), Ambiente: ambienteCode(req.ambiente), Tipo: req.tipo === 'boleta' ? 2 : 1 };
      const file: FilePart = { name: req.tipo === 'boleta' ? 'envio-boleta.xml' : 'envio-dte.xml', data: req.envelope, type: 'text/xml' };
      const r = await post(creds, 'api', ROUTES.send, input, { idempotent: false, files: [file], answerStatuses: [400] });
      const secrets = [input.Certificado.Password, creds.apiKey];
      if (r.status === 400 && !/^\s*\{/.test(r.body.toString('utf8'))) {
        throw new ProviderError('rejected', `The billing provider refused the upload: ${excerpt(r.body, secrets)}`, 400);
      }
      const a = json<EnvioResponse>(r.body, 'the upload', secrets);
      if (!a.ok || !a.trackId || a.trackId === FAILED_TRACK_ID) {
        // `errores` is one string [C; D9], the SII's reason; `glosa` its summary.
        const detail = [a.glosa, typeof a.errores === 'string' ? a.errores : null].filter(Boolean).join(': ');
        throw new ProviderError(
          'rejected',
          `The SII did not take the upload (${a.estado || 'sin estado'}): ${detail || 'sin detalle'}`,
          r.status,
        );
      }
      return { trackId: String(a.trackId), estado: String(a.estado ?? ''), glosa: String(a.glosa ?? ''), raw: r.body };
    },

    async uploadStatus(creds, req) {
      const boleta = req.tipo === 'boleta';
      const input = {
        Certificado: certificado(creds),
        RutEmpresa: req.rutEmpresa,
        TrackId: Number(req.trackId),
        Ambiente: ambienteCode(req.ambiente),
        ServidorBoletaREST: boleta,
      };
      const r = await post(creds, 'api', ROUTES.envioStatus, input, { idempotent: true });
      const secrets = [input.Certificado.Password, creds.apiKey];
      return boleta
        ? parseBoletaStatus(json<EnvioBoletaStatusResponse>(r.body, 'the upload status', secrets), req.trackId, r.body)
        : parseDteEnvioStatus(json<EnvioDteStatusResponse>(r.body, 'the upload status', secrets), req.trackId, r.body);
    },

    async documentStatus(creds, req) {
      const input = {
        Certificado: certificado(creds),
        RutEmpresa: req.rutEmpresa,
        RutReceptor: req.rutReceptor,
        Folio: req.folio,
        Total: req.montoTotal,
        FechaDTE: req.fechaEmision,
        Tipo: req.tipoDte,
        Ambiente: ambienteCode(req.ambiente),
        ServidorBoletaREST: isBoleta(req.tipoDte), // boletas are asked on the SII's boleta REST server (protocol.ts, DteStatusInput)
      };
      const r = await post(creds, 'api', ROUTES.dteStatus, input, { idempotent: true });
      return parseDteStatus(json<DteStatusResponse>(r.body, 'the document status', [input.Certificado.Password, creds.apiKey]));
    },

    async annulFolios(creds, req) {
      const input = { ...foliosInput(creds, req.rutEmpresa, ambienteCode(req.ambiente)), MotivoAnulacion: ANNUL_REASON };
      const r = await post(creds, 'servicios', ROUTES.annul(req.tipoDte, req.desde, req.hasta), input, {
        idempotent: false,
        answerStatuses: [400],
      });
      return parseAnnulment(r.body, [input.Password, creds.apiKey], { desde: req.desde, hasta: req.hasta });
    },

    async registerAcceptance(creds, req) {
      const input: AceptacionReclamoInput = {
        Certificado: certificado(creds),
        Tipo: req.tipoDte,
        Folio: req.folio,
        Accion: req.accion,
        RutEmpresa: req.rutEmisor,
        Ambiente: ambienteCode(req.ambiente),
      };
      // Not idempotent for the transport: a timeout may have registered it. Asking again is safe for
      // the caller though (the SII answers 7, "Evento registrado previamente", which counts as done).
      const r = await post(creds, 'api', ROUTES.acceptance, input, { idempotent: false });
      return parseAcceptance(json<AceptacionReclamoResponse>(r.body, 'the acceptance', [input.Certificado.Password, creds.apiKey]), r.body);
    },
  };
}

/** compras/aceptacionreclamo: the SII's codResp decides, whatever the HTTP status (200 for refusals too [C]). */
export function parseAcceptance(a: AceptacionReclamoResponse, raw?: Buffer): AcceptanceRegistration {
  const codigo = typeof a.codRespuesta === 'number' ? a.codRespuesta : Number(a.codRespuesta);
  // The SOAP text has the same code and words; `codRespuesta`/`descripcion` are its JSON copy [C].
  const descripcion = text(a.descripcion) || (/<descResp>([^<]*)<\/descResp>/.exec(text(a.response))?.[1] ?? '');
  if (!Number.isInteger(codigo)) throw new ProviderError('unavailable', 'The billing provider answered the acceptance without a code.');
  if (codigo === REGISTRO_RETRY)
    throw new ProviderError('unavailable', `The SII could not register the action now: ${descripcion || 'Error Interno'}.`);
  return {
    outcome: codigo === REGISTRO_OK || codigo === REGISTRO_ALREADY ? 'registered' : 'refused',
    codigo,
    descripcion,
    ...(raw ? { raw } : {}),
  };
}

/** Per-document SII state → our status (boleta `detalles`): RPR/RLV reparos, RCH rejected. */
export function statusForDocumentState(estado: string): DocumentOutcome['status'] {
  if (estado === 'DOK' || estado === 'ACD' || estado === 'ACE' || estado === 'EPR') return 'accepted';
  if (estado === 'RLV' || estado === 'RPR') return 'accepted_with_objections';
  return 'rejected';
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** consulta/envio for an EnvioDTE: counts per type only [C "Consulta Exitosa"]; `ok:false` answers are failed queries. */
export function parseDteEnvioStatus(a: EnvioDteStatusResponse, trackId: string, raw?: Buffer): UploadStatus {
  const estado = text(a.estado);
  return {
    trackId: a.trackId ? String(a.trackId) : trackId,
    estado,
    glosa: text(a.glosa),
    final: FINAL_ENVELOPE_STATES.has(estado),
    estadistica: (a.estados ?? []).map((s) => ({
      tipoDte: Number(s.tipoDocumento),
      informados: Number(s.cantidadInformados),
      aceptados: Number(s.cantidadAceptados),
      rechazados: Number(s.cantidadRechazados),
      reparos: Number(s.cantidadReparos),
    })),
    documents: [],
    documentsListed: false,
    ...(raw ? { raw } : {}),
  };
}

/** consulta/envio for an EnvioBOLETA: `estadistica` and `detalles` of the documents not plainly accepted [C]. */
export function parseBoletaStatus(a: EnvioBoletaStatusResponse, trackId: string, raw?: Buffer): UploadStatus {
  const estado = text(a.estado);
  return {
    trackId: a.trackId ? String(a.trackId) : trackId,
    estado,
    // A failed query says why in `response` ("Error de Permiso"); a processed one may sum up in `errores`.
    glosa: text(a.response) || (estado === 'EPR' ? 'Envío Procesado' : ''),
    final: FINAL_ENVELOPE_STATES.has(estado),
    estadistica: (a.estadistica ?? []).map((s) => ({
      tipoDte: Number(s.tipo),
      informados: Number(s.informados),
      aceptados: Number(s.aceptados),
      rechazados: Number(s.rechazados),
      reparos: Number(s.reparos),
    })),
    documents: (a.detalles ?? []).map((d) => ({
      tipoDte: Number(d.tipo),
      folio: Number(d.folio),
      status: statusForDocumentState(text(d.estado)),
      estado: text(d.estado),
      glosa:
        (d.errores ?? []).length > 0
          ? d.errores
              .map(
                (e) => `${e.seccion}-${e.nivel}-${String(e.codigo).padStart(3, '0')} ${e.descripcion}${e.detalle ? ` (${e.detalle})` : ''}`,
              )
              .join('; ')
          : text(d.descripcion),
    })),
    documentsListed: estado === 'EPR',
    ...(raw ? { raw } : {}),
  };
}

/** The SII's GLOSA_ERR inside consulta/dte's responseXml, the only place it appears [C "Consulta Exitosa"]. */
const glosaErr = (xml: string | null): string => /<GLOSA_ERR>([^<]*)<\/GLOSA_ERR>/.exec(xml ?? '')?.[1]?.trim() ?? '';

/** consulta/dte: DTEs in `estado`/`glosaEstado`, boletas in `codigo`/`descripcion` [C "Boleta no recibida"]. */
export function parseDteStatus(a: DteStatusResponse): { estado: string; glosa: string } {
  if (!a.estado && a.codigo) return { estado: text(a.codigo), glosa: text(a.descripcion) };
  const detail = text(a.glosa_ERR_CODE) || glosaErr(a.responseXml);
  const head = text(a.glosaEstado);
  return { estado: text(a.estado), glosa: detail && detail !== head ? (head ? `${head}: ${detail}` : detail) : head };
}

/**
 * The range an "ya ha sido efectuado anteriormente" answer names as annulled before [C "Error de
 * anulación": "Folio Inicial Anulado\r\n414\r\nFolio Final Anulado\r\n415"]; undefined when absent.
 */
export function earlierAnnulledRange(mensaje: string): { desde: number; hasta: number } | undefined {
  const from = /Folio Inicial Anulado\s+(\d+)/i.exec(mensaje);
  const to = /Folio Final Anulado\s+(\d+)/i.exec(mensaje);
  return from && to ? { desde: Number(from[1]), hasta: Number(to[1]) } : undefined;
}

/**
 * folios/anulacion: one entry per CAF the range touches [C "Anulacion"]. Annulled when every entry
 * succeeded or says that its part of the requested range was annulled before ("ya ha sido efectuado
 * anteriormente", which the SII answers to a repeated request: success, not failure). The earlier
 * range the SII names must cover that part: an answer naming a smaller range (a run that grew after
 * a timeout, a partial overlap) is not proof that the rest is annulled, so it counts as a refusal and
 * nothing is recorded as annulled that the SII did not annul.
 */
export function parseAnnulment(
  body: Buffer,
  secrets: string[] = [],
  requested?: { desde: number; hasta: number },
): { ok: boolean; glosa: string } {
  let entries: AnnulEntry[];
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    if (!Array.isArray(v)) throw new Error('not an array');
    entries = v as AnnulEntry[];
  } catch {
    throw new ProviderError('rejected', `The billing provider answered the annulment with: ${excerpt(body, secrets)}`);
  }
  const annulledBefore = (e: AnnulEntry): boolean => {
    const mensaje = text(e.mensaje);
    if (!ALREADY_ANNULLED.test(mensaje)) return false;
    if (!requested) return true;
    const earlier = earlierAnnulledRange(mensaje);
    if (!earlier) return false;
    // This entry's part of the request: the requested range within the CAF the entry answers for.
    const from = Number.isFinite(Number(e.folioInicialCAF)) ? Math.max(requested.desde, Number(e.folioInicialCAF)) : requested.desde;
    const to = Number.isFinite(Number(e.folioFinalCAF)) ? Math.min(requested.hasta, Number(e.folioFinalCAF)) : requested.hasta;
    return earlier.desde <= from && earlier.hasta >= to;
  };
  const failed = entries.filter((e) => !e.exito && !annulledBefore(e));
  const clean = (m: string) =>
    m
      .replace(/^En esta página podrá solicitar la anulación de folios\.*\s*/i, '')
      .replace(/\s+/g, ' ')
      .trim();
  if (entries.length === 0) return { ok: false, glosa: 'The SII answered the annulment with no result.' };
  if (failed.length > 0) return { ok: false, glosa: failed.map((e) => clean(text(e.mensaje))).join(' | ') };
  return { ok: true, glosa: entries.map((e) => clean(text(e.mensaje))).join(' | ') };
}
