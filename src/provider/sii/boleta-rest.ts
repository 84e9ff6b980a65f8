import { splitRut } from '../../dte/index.ts';
import { ProviderError, type Ambiente, type DocumentOutcome, type UploadResult, type UploadStatus } from '../port.ts';
import { FINAL_ENVELOPE_STATES } from '../simpleapi/protocol.ts';
import { statusForDocumentState } from '../simpleapi/simpleapi.ts';
import {
  BOLETA_ENVIO_PATH,
  boletaEnvioStatusPath,
  countDtes,
  MAX_BOLETAS_PER_ENVIO,
  type BoletaEnvioReception,
  type BoletaEnvioStatusAnswer,
  type BoletaError,
} from './boleta-protocol.ts';
import type { SiiCallContext, SiiCredentials } from './context.ts';
import { excerpt, siiRequest, type SiiResponse } from './http.ts';
import { siiUploadForm } from './multipart.ts';
import { withToken } from './with-token.ts';

/**
 * Boletas (39, 41) through the SII's boleta REST API (docs/sources.md §1.5; boleta-protocol.ts):
 * the envío to the restUpload origin (rahue / pangal) and its status on the rest origin (api /
 * apicert), each with the REST token in `Cookie: TOKEN=…` and the gateway's Mozilla User-Agent
 * (any other is answered 401 even with a valid token). The multipart body goes in one buffer with
 * a Content-Length: a chunked one is truncated at about 4 KB (multipart.ts).
 *
 * A 401 means the token (or the request) was not taken: the token is forgotten and the call made
 * once more with a fresh one; a second 401 is the certificate's problem, not a passing one.
 */
export interface BoletaUploadRequest {
  rutEmpresa: string;
  envelope: Buffer;
  ambiente: Ambiente;
}

export interface BoletaStatusRequest {
  rutEmpresa: string;
  trackId: string;
  ambiente: Ambiente;
}

/** An answer with the token it was asked with, to keep the token out of any error text. */
type Answer = SiiResponse & { token: string };

const refusedTwice = (what: string) =>
  new ProviderError(
    'certificate_rejected',
    `The SII's boleta server refused the ${what} twice with a fresh token (401 NO ESTA AUTENTICADO): check that the certificate's holder is authorised to send boletas for the company.`,
    401,
  );

const failure = (what: string, a: Answer): ProviderError => {
  if (a.status >= 500 || a.status === 429) {
    return new ProviderError('unavailable', `The SII's boleta server failed the ${what} (HTTP ${a.status}).`, a.status);
  }
  return new ProviderError('rejected', `The SII's boleta server refused the ${what} (HTTP ${a.status}): ${answerText(a)}`, a.status);
};

/** The SII's words in a refusal: our emulator's `{error}` JSON, or the text as it came. */
function answerText(a: Answer): string {
  try {
    const j = JSON.parse(a.body.toString('utf8')) as { error?: unknown };
    if (typeof j.error === 'string') return excerpt(j.error, [a.token]);
  } catch {
    /* not JSON */
  }
  return excerpt(a.body, [a.token]) || '(no body)';
}

function json<T>(a: Answer, what: string): T {
  try {
    return JSON.parse(a.body.toString('utf8')) as T;
  } catch {
    throw new ProviderError(
      'unavailable',
      `The SII's boleta server answered the ${what} with something that is not JSON: ${excerpt(a.body, [a.token])}`,
      a.status,
    );
  }
}

/** POST boleta.electronica.envio: ≤500 boletas, refused before any call when more (§1.5). */
export async function uploadBoletas(ctx: SiiCallContext, creds: SiiCredentials, req: BoletaUploadRequest): Promise<UploadResult> {
  const n = countDtes(req.envelope);
  if (n > MAX_BOLETAS_PER_ENVIO) {
    throw new ProviderError(
      'rejected',
      `An EnvioBOLETA may carry at most ${MAX_BOLETAS_PER_ENVIO} boletas and this one has ${n}: send them in envíos of ${MAX_BOLETAS_PER_ENVIO} or fewer (the SII recommends 50).`,
    );
  }
  const { body, contentType } = siiUploadForm(creds.rutCertificado, req.rutEmpresa, { filename: 'envio-boleta.xml', data: req.envelope });
  const a = await withToken(ctx, 'rest', creds, req.ambiente, async (token) => {
    const r = await siiRequest(ctx, {
      service: 'restUpload',
      ambiente: req.ambiente,
      operation: 'boleta.electronica.envio',
      path: BOLETA_ENVIO_PATH,
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': contentType },
      body,
      token,
    });
    return r.status === 401 ? undefined : { ...r, token };
  });
  if (!a) throw refusedTwice('boleta envío');
  if (a.status !== 200) throw failure('boleta envío', a);
  const j = json<Partial<BoletaEnvioReception>>(a, 'boleta envío');
  const trackId = typeof j.trackid === 'number' || typeof j.trackid === 'string' ? String(j.trackid) : '';
  if (!/^\d+$/.test(trackId)) {
    throw new ProviderError(
      'unavailable',
      `The SII's boleta server answered the envío without a track id: ${excerpt(a.body, [a.token])}`,
      a.status,
    );
  }
  return { trackId, estado: typeof j.estado === 'string' ? j.estado : 'REC', glosa: 'Envio recibido', raw: a.body };
}

/** GET boleta.electronica.envio/{rut}-{dv}-{trackid} (§1.5). */
export async function boletaUploadStatus(ctx: SiiCallContext, creds: SiiCredentials, req: BoletaStatusRequest): Promise<UploadStatus> {
  const company = splitRut(req.rutEmpresa);
  if (!/^\d{1,15}$/.test(req.trackId)) throw new ProviderError('rejected', `"${req.trackId}" is not an SII track id.`);
  const a = await withToken(ctx, 'rest', creds, req.ambiente, async (token) => {
    const r = await siiRequest(ctx, {
      service: 'rest',
      ambiente: req.ambiente,
      operation: 'boleta.electronica.envio/:id',
      path: boletaEnvioStatusPath(company.rut, company.dv, req.trackId),
      method: 'GET',
      headers: { Accept: 'application/json' },
      token,
    });
    return r.status === 401 ? undefined : { ...r, token };
  });
  if (!a) throw refusedTwice('boleta status query');
  if (a.status === 400 || a.status === 403 || a.status === 404) {
    // A failed query (bad id, no permission, no such envío): never final, as SimpleAPI's "Error de
    // Permiso" is (port.ts UploadStatus); the service asks again later.
    return {
      trackId: req.trackId,
      estado: '',
      glosa: answerText(a),
      final: false,
      estadistica: [],
      documents: [],
      documentsListed: false,
      raw: a.body,
    };
  }
  if (a.status !== 200) throw failure('boleta status query', a);
  return parseBoletaEnvioStatus(json<BoletaEnvioStatusAnswer>(a, 'boleta status query'), req.trackId, a.body);
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** `SEC-L-NNN descripcion (detalle)`, the SII's way of naming a finding (docs/sources.md §10), joined with "; ". */
export const findingsText = (errors: readonly BoletaError[] | null | undefined): string =>
  (errors ?? [])
    .map(
      (e) =>
        `${text(e.seccion)}-${text(e.nivel)}-${text(e.codigo).padStart(3, '0')} ${text(e.descripcion)}${e.detalle ? ` (${text(e.detalle)})` : ''}`,
    )
    .join('; ');

/**
 * The status answer → UploadStatus: counts per type (`estadistica`) and every boleta with reparos
 * or rejected (`detalle_rep_rech`), once processed (EPR). An entry without folio rejects the whole
 * envío (Odoo, docs/sources.md §9.6): its words become the glosa.
 */
export function parseBoletaEnvioStatus(a: BoletaEnvioStatusAnswer, trackId: string, raw?: Buffer): UploadStatus {
  const estado = text(a.estado);
  const entries = a.detalle_rep_rech ?? [];
  const whole = entries.find((d) => d.folio === null || d.folio === undefined);
  const documents: DocumentOutcome[] = entries
    .filter((d) => d.folio !== null && d.folio !== undefined)
    .map((d) => ({
      tipoDte: Number(d.tipo),
      folio: Number(d.folio),
      status: statusForDocumentState(text(d.estado)),
      estado: text(d.estado),
      glosa: findingsText(d.error) || text(d.descripcion),
    }));
  return {
    trackId: a.trackid ? String(a.trackid) : trackId,
    estado,
    glosa: whole ? text(whole.descripcion) || findingsText(whole.error) : estado === 'EPR' ? 'Envio procesado' : '',
    final: FINAL_ENVELOPE_STATES.has(estado),
    estadistica: (a.estadistica ?? []).map((s) => ({
      tipoDte: Number(s.tipo),
      informados: Number(s.informados),
      aceptados: Number(s.aceptados),
      rechazados: Number(s.rechazados),
      reparos: Number(s.reparos),
    })),
    documents,
    documentsListed: estado === 'EPR',
    ...(raw ? { raw } : {}),
  };
}
