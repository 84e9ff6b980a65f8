import { toSiiRut } from '../../dte/index.ts';
import { documentName } from '../../pdf/index.ts';
import type { OutgoingMail } from './exchange.mail.ts';

/**
 * The e-mail a receptor gets (docs/exchange.md, "The message"): pure, from what the delivery job
 * gathered. Spanish, as the receptors are Chilean companies. Two attachments: the EnvioDTE
 * addressed to the receptor (what its systems load; the intercambio) and the printed document.
 */
export interface DeliveryContent {
  deliveryId: string;
  from: string;
  to: string;
  /** The tenant's contact address, as Reply-To (the receptor's answer goes to the issuer, not to us). */
  replyTo: string | null;
  emisor: { rut: string; razonSocial: string };
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  montoTotal: number;
  envelope: Buffer;
  pdf: { bytes: Buffer; filename: string };
}

/** The domain of the From address, for Message-IDs (`<delivery-id@domain>`); `localhost` if it has none. */
export function messageDomain(from: string): string {
  const m = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from.trim());
  return m?.[1]?.toLowerCase() || 'localhost';
}

const pesos = (n: number): string => `$${Math.round(n).toLocaleString('es-CL')}`;

/** Title case of the SII's upper-case document name ("FACTURA ELECTRÓNICA" → "Factura electrónica"). */
const sentenceCase = (s: string): string => s.charAt(0) + s.slice(1).toLocaleLowerCase('es-CL');

export function envelopeFilename(c: Pick<DeliveryContent, 'emisor' | 'tipoDte' | 'folio'>): string {
  return `EnvioDTE_${toSiiRut(c.emisor.rut)}_T${c.tipoDte}_F${c.folio}.xml`;
}

export function composeDeliveryMail(c: DeliveryContent): OutgoingMail {
  const nombre = sentenceCase(documentName(c.tipoDte));
  const xmlName = envelopeFilename(c);
  const rut = toSiiRut(c.emisor.rut);
  const text = [
    'Estimado(a) receptor(a):',
    '',
    `${c.emisor.razonSocial} (RUT ${rut}) le envía la ${nombre} N° ${c.folio} del ${c.fechaEmision}, por un total de ${pesos(c.montoTotal)}, aceptada por el SII.`,
    '',
    'Adjuntos:',
    `- ${xmlName}: el documento tributario electrónico firmado, en un EnvioDTE dirigido a usted (intercambio de información entre contribuyentes).`,
    `- ${c.pdf.filename}: su representación impresa.`,
    '',
    'Dispone de ocho días desde su recepción para aceptarlo o reclamarlo ante el SII (Ley 19.983).',
    '',
    'Este mensaje fue generado automáticamente.',
  ].join('\n');
  return {
    messageId: `<${c.deliveryId}@${messageDomain(c.from)}>`,
    from: c.from,
    to: c.to,
    ...(c.replyTo ? { replyTo: c.replyTo } : {}),
    subject: `${nombre} N° ${c.folio} de ${c.emisor.razonSocial}`,
    text,
    attachments: [
      { filename: xmlName, contentType: 'application/xml', content: c.envelope },
      { filename: c.pdf.filename, contentType: 'application/pdf', content: c.pdf.bytes },
    ],
  };
}

/** A plausible mailbox: what a delivery is attempted to (anything else is recorded as skipped). */
export const isDeliverableAddress = (s: string | null | undefined): s is string =>
  typeof s === 'string' && s.length <= 254 && /^[^\s@<>()",;:[\]]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(s.trim());

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
    messageId: `<${c.deliveryId}@${messageDomain(c.from)}>`,
    from: c.from,
    to: c.to,
    ...(c.replyTo ? { replyTo: c.replyTo } : {}),
    subject: `${what}: ${named}`,
    text,
    attachments: [{ filename, contentType: 'application/xml', content: c.xml }],
  };
}
