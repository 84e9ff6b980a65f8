import type { Ambiente, BookStatus, DocumentState, DocumentStatusRequest, UploadStatus } from '../port.ts';
import { ProviderError } from '../port.ts';
import { FINAL_ENVELOPE_STATES } from '../simpleapi/protocol.ts';
import { splitRut } from '../../dte/index.ts';
import type { SiiCallContext, SiiCredentials } from './context.ts';
import { tagText } from './http.ts';
import { soapCall } from './soap.ts';
import { withToken } from './with-token.ts';

/**
 * The DTEWS status queries (docs/sources.md §1.4), answered as the SimpleAPI adapter answers the
 * same SII data (simpleapi.ts parseDteEnvioStatus / parseDteStatus), so the service cannot tell
 * the two apart:
 *  - QueryEstUp.getEstUp(Rut, Dv, TrackId, Token) → UploadStatus: RESP_HDR ESTADO/GLOSA, and per
 *    type counts from RESP_BODY (TIPO_DOCTO, INFORMADOS, ACEPTADOS, RECHAZADOS, REPAROS, repeated)
 *    once EPR; counts only, never the documents (`documentsListed` false). `final` for EPR, RSC,
 *    RFR, RCT (FINAL_ENVELOPE_STATES). A failed query (106 no permission, -11 …) is a status with
 *    that code, never final.
 *  - QueryEstDte.getEstDte(… FechaEmisionDte ddMMyyyy, MontoDte, Token) → DocumentState: ESTADO,
 *    and GLOSA_ESTADO with GLOSA_ERR after it when they differ.
 * Token errors 001, 002, 003 (cookie or token inactive, token unknown): the token is dropped and
 * the query asked once more with a fresh one; a second refusal is `unavailable`.
 */
export const QUERY_EST_UP_PATH = '/DTEWS/QueryEstUp.jws';
export const QUERY_EST_DTE_PATH = '/DTEWS/QueryEstDte.jws';
export const TOKEN_ESTADOS = new Set(['001', '002', '003']);

/** A DTEWS query with the SOAP token, asked once more with a fresh one when the SII refuses it (with-token.ts). */
async function withSoapToken(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  ambiente: Ambiente,
  what: string,
  call: (token: string) => Promise<string>,
): Promise<string> {
  let refused = '';
  const xml = await withToken(ctx, 'soap', creds, ambiente, async (token) => {
    const answer = await call(token);
    if (!TOKEN_ESTADOS.has(tagText(answer, 'ESTADO') ?? '')) return answer;
    refused = answer;
    return undefined;
  });
  if (xml !== undefined) return xml;
  throw new ProviderError(
    'unavailable',
    `The SII refused a fresh token for ${what} (ESTADO ${tagText(refused, 'ESTADO') ?? ''}: ${tagText(refused, 'GLOSA') ?? ''}).`,
  );
}

export function parseEstUp(xml: string, trackId: string): UploadStatus {
  const estado = tagText(xml, 'ESTADO') ?? '';
  const hdrTrack = tagText(xml, 'TRACKID');
  const body = /<(?:\w+:)?RESP_BODY>([\s\S]*?)<\/(?:\w+:)?RESP_BODY>/.exec(xml)?.[1] ?? '';
  const groups = body.split(/(?=<TIPO_DOCTO>)/).filter((g) => g.includes('<TIPO_DOCTO>'));
  const n = (g: string, tag: string) => Number(tagText(g, tag) ?? 0);
  return {
    trackId: hdrTrack && /^\d+$/.test(hdrTrack) && hdrTrack !== '0' ? hdrTrack : trackId,
    estado,
    glosa: tagText(xml, 'GLOSA') ?? tagText(xml, 'ERR_CODE') ?? '',
    final: FINAL_ENVELOPE_STATES.has(estado),
    estadistica: groups.map((g) => ({
      tipoDte: n(g, 'TIPO_DOCTO'),
      informados: n(g, 'INFORMADOS'),
      aceptados: n(g, 'ACEPTADOS'),
      rechazados: n(g, 'RECHAZADOS'),
      reparos: n(g, 'REPAROS'),
    })),
    documents: [],
    documentsListed: false,
    raw: Buffer.from(xml, 'utf8'),
  };
}

export function parseEstDte(xml: string): DocumentState {
  const head = tagText(xml, 'GLOSA_ESTADO') ?? tagText(xml, 'GLOSA') ?? '';
  const detail = tagText(xml, 'GLOSA_ERR') ?? '';
  return { estado: tagText(xml, 'ESTADO') ?? '', glosa: detail && detail !== head ? (head ? `${head}: ${detail}` : detail) : head };
}

export async function queryUploadStatus(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: { rutEmpresa: string; trackId: string; ambiente: Ambiente },
): Promise<UploadStatus> {
  const company = splitRut(req.rutEmpresa);
  const xml = await withSoapToken(ctx, creds, req.ambiente, 'QueryEstUp', (token) =>
    soapCall(ctx, {
      ambiente: req.ambiente,
      path: QUERY_EST_UP_PATH,
      service: 'QueryEstUp',
      operation: 'getEstUp',
      params: [
        ['Rut', company.rut],
        ['Dv', company.dv],
        ['TrackId', req.trackId],
        ['Token', token],
      ],
      secrets: [token],
    }),
  );
  return parseEstUp(xml, req.trackId);
}

/**
 * A book's state at QueryEstUp (docs/sources.md §1.4: books report LSO/LOK accepted, LRH
 * mismatched totals, not EPR): LOK/LSO accepted; LRH and the envelope rejections (RSC, RFR, RCT)
 * rejected with the GLOSA; anything else (REC…PDR, a failed query) still pending.
 */
const BOOK_ACCEPTED = new Set(['LOK', 'LSO']);
const BOOK_REJECTED = new Set(['LRH', 'RSC', 'RFR', 'RCT']);

export async function queryBookStatus(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: { rutEmpresa: string; trackId: string; ambiente: Ambiente },
): Promise<BookStatus> {
  const s = await queryUploadStatus(ctx, creds, req);
  const outcome = BOOK_ACCEPTED.has(s.estado) ? 'accepted' : BOOK_REJECTED.has(s.estado) ? 'rejected' : 'pending';
  return { trackId: s.trackId, estado: s.estado, glosa: s.glosa, outcome };
}

/** `YYYY-MM-DD` → the SII's `ddMMyyyy`. */
const ddMMyyyy = (d: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  return m ? `${m[3]}${m[2]}${m[1]}` : d;
};

export async function queryDocumentStatus(ctx: SiiCallContext, creds: SiiCredentials, req: DocumentStatusRequest): Promise<DocumentState> {
  const consultante = splitRut(creds.rutCertificado);
  const company = splitRut(req.rutEmpresa);
  const receptor = splitRut(req.rutReceptor);
  const xml = await withSoapToken(ctx, creds, req.ambiente, 'QueryEstDte', (token) =>
    soapCall(ctx, {
      ambiente: req.ambiente,
      path: QUERY_EST_DTE_PATH,
      service: 'QueryEstDte',
      operation: 'getEstDte',
      params: [
        ['RutConsultante', consultante.rut],
        ['DvConsultante', consultante.dv],
        ['RutCompania', company.rut],
        ['DvCompania', company.dv],
        ['RutReceptor', receptor.rut],
        ['DvReceptor', receptor.dv],
        ['TipoDte', String(req.tipoDte)],
        ['FolioDte', String(req.folio)],
        ['FechaEmisionDte', ddMMyyyy(req.fechaEmision)],
        ['MontoDte', String(req.montoTotal)],
        ['Token', token],
      ],
      secrets: [token],
    }),
  );
  return parseEstDte(xml);
}
