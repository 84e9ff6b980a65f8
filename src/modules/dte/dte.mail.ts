import type { PreparedSigner } from '../../dte/index.ts';
import { buildEnvelope, toSiiRut } from '../../dte/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { documentName } from '../../pdf/index.ts';
import { addressedHeaders, type MailAddressing, type MailToCompose, type OutgoingMail } from '../exchange/index.ts';
import type { TenantRef, TenantRow } from '../tenants/index.ts';

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
    ...addressedHeaders(c),
    subject: `${nombre} N° ${c.folio} de ${c.emisor.razonSocial}`,
    text,
    attachments: [
      { filename: xmlName, contentType: 'application/xml', content: c.envelope },
      { filename: c.pdf.filename, contentType: 'application/pdf', content: c.pdf.bytes },
    ],
  };
}

/** The documents the composer reads, through the dte module's own reads. */
interface DocumentSource {
  get(
    tenant: TenantRef,
    id: string,
  ): Promise<{ tipoDte: number; folio: number; fechaEmision: string; montoTotal: number; receptor: { rut: string } }>;
  xml(tenant: TenantRef, id: string): Promise<Buffer>;
  pdf(tenant: TenantRow, id: string, opts: { formato: 'carta'; cedible: false }): Promise<{ pdf: Buffer; filename: string }>;
}

/**
 * The outbox's composer for the subject `dte` (dte.deliveries.ts; registered by the composition root): gathers the document,
 * its PDF and the tenant's signer, builds the EnvioDTE addressed to the receptor, and writes the
 * message. Runs in the delivery job, outside any transaction (docs/exchange.md).
 */
export function createDteMailComposer(deps: {
  clock: Clock;
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  signers: { get(accountId: string, tenantId: string): Promise<{ signer: PreparedSigner }> };
  documents: DocumentSource;
}) {
  return async (d: MailToCompose, a: MailAddressing): Promise<OutgoingMail> => {
    const dteId = d.subject.id;
    const tenant = await deps.getTenant(d.accountId, d.tenantId);
    const doc = await deps.documents.get(tenant, dteId);
    const [xml, pdf, { signer }] = await Promise.all([
      deps.documents.xml(tenant, dteId),
      deps.documents.pdf(tenant, dteId, { formato: 'carta', cedible: false }),
      deps.signers.get(d.accountId, d.tenantId),
    ]);
    const envelope = buildEnvelope({
      dtes: [xml],
      rutEmisor: tenant.rut_empresa,
      rutReceptor: doc.receptor.rut,
      fechaResolucion: tenant.fecha_resolucion,
      numeroResolucion: tenant.numero_resolucion,
      signer,
      now: deps.clock.now(),
    });
    return composeDeliveryMail({
      ...a,
      replyTo: tenant.email,
      emisor: { rut: tenant.rut_empresa, razonSocial: tenant.razon_social },
      tipoDte: doc.tipoDte,
      folio: doc.folio,
      fechaEmision: doc.fechaEmision,
      montoTotal: doc.montoTotal,
      envelope: envelope.xml,
      pdf: { bytes: pdf.pdf, filename: pdf.filename },
    });
  };
}
