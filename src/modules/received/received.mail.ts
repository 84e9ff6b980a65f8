import { toSiiRut } from '../../dte/index.ts';
import { documentName } from '../../pdf/index.ts';
import { addressedHeaders, type MailAddressing, type MailToCompose, type OutgoingMail } from '../exchange/index.ts';
import type { TenantRef, TenantRow } from '../tenants/index.ts';
import { respuestaOf } from './received.deliveries.ts';

/** Title case of the SII's upper-case document name ("FACTURA ELECTRÓNICA" → "Factura electrónica"). */
const sentenceCase = (s: string): string => s.charAt(0) + s.slice(1).toLocaleLowerCase('es-CL');

/** What the answer to a supplier names (docs/received.md, "Sending the signed answers"). */
export interface RespuestaContent {
  deliveryId: string;
  from: string;
  to: string;
  /** The tenant's contact address, as Reply-To. */
  replyTo: string | null;
  /** The tenant that answers (the receptor of the documents). */
  responde: { rut: string; razonSocial: string };
  tipo: 'RecepcionEnvio' | 'ResultadoDTE' | 'EnvioRecibos';
  /** ACD, ERM, RCD, RFP or RFT for a ResultadoDTE / EnvioRecibos. */
  accion: string | null;
  /** The documents answered (one, or those of the upload that can be named). */
  documentos: { tipoDte: number; folio: number; rutEmisor: string }[];
  /** The upload's file name (RecepcionEnvio) and its CodEnvio. */
  envio: { nombreEnvio: string; codEnvio: number } | null;
  /** The signed answer as produced, byte for byte. */
  xml: Buffer;
}

const ACCION_ASUNTO: Record<string, string> = {
  ACD: 'Aceptación del contenido',
  ERM: 'Recibo de mercaderías o servicios',
  RCD: 'Reclamo al contenido',
  RFP: 'Reclamo por falta parcial de mercaderías',
  RFT: 'Reclamo por falta total de mercaderías',
};

const docName = (d: { tipoDte: number; folio: number; rutEmisor: string }): string =>
  `${sentenceCase(documentName(d.tipoDte))} N° ${d.folio}, emisor RUT ${toSiiRut(d.rutEmisor)}`;

export function respuestaFilename(c: Pick<RespuestaContent, 'tipo' | 'responde' | 'documentos' | 'envio'>): string {
  const rut = toSiiRut(c.responde.rut);
  const d = c.documentos[0];
  if (c.tipo === 'RecepcionEnvio') return `RespuestaEnvioDTE_${rut}_${c.envio?.codEnvio ?? 0}.xml`;
  const name = c.tipo === 'EnvioRecibos' ? 'EnvioRecibos' : 'RespuestaDTE';
  return d ? `${name}_${rut}_T${d.tipoDte}_F${d.folio}.xml` : `${name}_${rut}.xml`;
}

/**
 * The e-mail a supplier gets with one of the tenant's signed answers: the RespuestaEnvioDTE of an
 * upload, or the ResultadoDTE / EnvioRecibos of an acceptance or claim, attached as produced.
 */
export function composeRespuestaMail(c: RespuestaContent): OutgoingMail {
  const first = c.documentos[0];
  const more = c.documentos.length > 1 ? ` y ${c.documentos.length - 1} documento(s) más` : '';
  const named = first ? `${docName(first)}${more}` : `envío ${c.envio?.nombreEnvio ?? ''}`.trim();
  const what =
    c.tipo === 'RecepcionEnvio'
      ? 'Acuse de recibo del envío'
      : `${ACCION_ASUNTO[c.accion ?? ''] ?? 'Respuesta'}${c.accion ? ` (${c.accion})` : ''}`;
  const filename = respuestaFilename(c);
  const rut = toSiiRut(c.responde.rut);
  const explain =
    c.tipo === 'RecepcionEnvio'
      ? `${c.responde.razonSocial} (RUT ${rut}) acusa recibo del envío ${c.envio?.nombreEnvio ?? ''} (CodEnvio ${c.envio?.codEnvio ?? ''}) con el siguiente resultado por documento:`
      : c.tipo === 'EnvioRecibos'
        ? `${c.responde.razonSocial} (RUT ${rut}) otorga el recibo de las mercaderías o servicios (Ley 19.983) del siguiente documento:`
        : `${c.responde.razonSocial} (RUT ${rut}) informa el resultado de la revisión comercial (${what}) del siguiente documento:`;
  const text = [
    'Estimado(a) emisor(a):',
    '',
    explain,
    ...c.documentos.map((d) => `- ${docName(d)}`),
    '',
    'Adjunto:',
    `- ${filename}: la respuesta firmada electrónicamente (intercambio de información entre contribuyentes).`,
    '',
    'Este mensaje fue generado automáticamente.',
  ].join('\n');
  return {
    ...addressedHeaders(c),
    subject: `${what}: ${named}`,
    text,
    attachments: [{ filename, contentType: 'application/xml', content: c.xml }],
  };
}

/** What the composer reads of received envíos and documents, through the received module's own reads. */
interface RespuestaSource {
  envio(
    tenant: TenantRef,
    envioId: string,
  ): Promise<{
    codEnvio: number;
    nombreEnvio: string;
    documents: { tipoDte: number | null; folio: number | null; rutEmisor: string | null }[];
  }>;
  respuesta(tenant: TenantRef, envioId: string): Promise<Buffer>;
  get(
    tenant: TenantRef,
    id: string,
  ): Promise<{
    id: string;
    tipoDte: number;
    folio: number;
    emisor: { rut: string };
    acciones: { n: number; accion: string; sii: { state: string } }[];
  }>;
  acceptanceXml(tenant: TenantRef, id: string, n: number): Promise<{ xml: Buffer }>;
}

/**
 * The outbox's composer for the received module's subjects (received.deliveries.ts; registered by
 * the composition root): the tenant's signed answer as stored, attached unchanged. `{ skip }` when
 * there is nothing to send any more: the SII refused the answer before its e-mail went out (the
 * outbox records it `skipped`, answer_refused_by_sii).
 */
export function createRespuestaComposer(deps: {
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  received: RespuestaSource;
}) {
  return async (d: MailToCompose, a: MailAddressing): Promise<OutgoingMail | { skip: string }> => {
    const tenant = await deps.getTenant(d.accountId, d.tenantId);
    const src = deps.received;
    const base = { ...a, replyTo: tenant.email, responde: { rut: tenant.rut_empresa, razonSocial: tenant.razon_social } };
    const answer = respuestaOf(d);
    if (answer.receivedEnvioId) {
      const [envio, xml] = await Promise.all([src.envio(tenant, answer.receivedEnvioId), src.respuesta(tenant, answer.receivedEnvioId)]);
      return composeRespuestaMail({
        ...base,
        tipo: 'RecepcionEnvio',
        accion: null,
        documentos: envio.documents.flatMap((x) =>
          x.tipoDte !== null && x.folio !== null && x.rutEmisor !== null
            ? [{ tipoDte: x.tipoDte, folio: x.folio, rutEmisor: x.rutEmisor }]
            : [],
        ),
        envio: { nombreEnvio: envio.nombreEnvio, codEnvio: envio.codEnvio },
        xml,
      });
    }
    const doc = await src.get(tenant, answer.receivedDteId!);
    const accion = doc.acciones.find((x) => x.n === answer.n);
    if (!accion || accion.sii.state === 'refused') return { skip: 'answer_refused_by_sii' };
    const { xml } = await src.acceptanceXml(tenant, doc.id, accion.n);
    return composeRespuestaMail({
      ...base,
      tipo: answer.tipo === 'EnvioRecibos' ? 'EnvioRecibos' : 'ResultadoDTE',
      accion: accion.accion,
      documentos: [{ tipoDte: doc.tipoDte, folio: doc.folio, rutEmisor: doc.emisor.rut }],
      envio: null,
      xml,
    });
  };
}
