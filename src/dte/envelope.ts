import { DteEngineError } from './errors.ts';
import { canonicalizeInContext, parseXml } from './c14n.ts';
import { DTE_OPEN_TAG, NS_SII, XML_DECLARATION } from './dte-xml.ts';
import { siiTimestamp, SII_TIME_ZONE, checkSiiDate } from './dates.ts';
import { el } from './xml-escape.ts';
import { breakLines } from './xml-lines.ts';
import { decodeXml } from './xml-decode.ts';
import { isLatin1 } from './text-policy.ts';
import { RUT_SII, toSiiRut } from './rut.ts';
import { MAX_DTE_PER_ENVIO_BOLETA, MAX_DTE_PER_ENVIO_DTE } from './limits.ts';
import { envelopeKindFor } from './catalogue.ts';
import { assertSignerValidAt, buildSignature, prepareSigner } from './xmldsig.ts';
import type { PreparedSigner } from './xmldsig.ts';
import type { SignerInput } from './types.ts';

/**
 * EnvioDTE / EnvioBOLETA. Signed DTEs are spliced in byte for byte (never re-serialised: their
 * own signatures were computed over these bytes standalone); the SetDTE is then signed in place.
 *
 * The SetDTE digest is over its canonical form *in the envelope context*: the apex SetDTE carries
 * the root's `xmlns` and `xmlns:xsi`; inside it, each DTE's own `xmlns="…SiiDte"` is redundant and
 * disappears from the canonical text. For DTEs this engine produced (canonical, opening with
 * DTE_OPEN_TAG) that is a string substitution; any other DTE is parsed and canonicalised.
 */
export const NS_XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export type EnvelopeKind = 'EnvioDTE' | 'EnvioBOLETA';

export interface BuildEnvelopeInput {
  /** Signed DTEs as stored (with or without XML declaration). All of one kind (boletas or not). */
  dtes: readonly Buffer[];
  rutEmisor: string;
  /** Holder of the signing certificate; defaults to the RUT read from the certificate. */
  rutEnvia?: string | undefined;
  /** 60803000-K (the SII, default) or the buyer's RUT for the copy sent to the buyer. */
  rutReceptor?: string | undefined;
  fechaResolucion: string;
  numeroResolucion: number;
  signer: SignerInput | PreparedSigner;
  now: Date;
  timeZone?: string;
  /** SetDTE/@ID, default "SetDoc". */
  setId?: string;
}

export interface BuiltEnvelope {
  kind: EnvelopeKind;
  xml: Buffer;
  setId: string;
  rutEnvia: string;
  subTotales: { tipoDte: number; cantidad: number }[];
  timestamp: string;
}

const CONTEXT = new Map([
  ['', NS_SII],
  ['xsi', NS_XSI],
]);

/**
 * A DTE string is taken as canonical (fast path) only when it has the exact shape we emit:
 * our opening tag, no CR, no comments/PIs/CDATA/doctype, no self-closing tags, only
 * double-quoted attributes without characters that C14N would escape, only the entity
 * references C14N writes, and only the opening tag with more than one attribute.
 */
const TAG = /<[^>]*>/g;
const CANONICAL_TAG = /^<(?:\/[A-Za-z][\w.-]*|[A-Za-z][\w.-]*(?: [A-Za-z][\w.:-]*="[^"<&>\t\n\r]*")?)>$/;

export function isOwnCanonicalDte(dte: string): boolean {
  if (!dte.startsWith(DTE_OPEN_TAG) || !dte.endsWith('</DTE>')) return false;
  if (/[\r]|<!|<\?|\/>/.test(dte)) return false;
  if (/&(?!amp;|lt;|gt;|#xD;)/.test(dte)) return false;
  const rest = dte.slice(DTE_OPEN_TAG.length);
  TAG.lastIndex = 0;
  for (let m = TAG.exec(rest); m; m = TAG.exec(rest)) {
    if (!CANONICAL_TAG.test(m[0])) return false;
  }
  // A '>' outside tags would have to be escaped in canonical text.
  return !/>[^<]*>/.test(rest);
}

export function canonicalInEnvelope(dte: string): string {
  if (isOwnCanonicalDte(dte)) return '<DTE version="1.0">' + dte.slice(DTE_OPEN_TAG.length);
  const root = parseXml(dte).documentElement;
  if (!root) throw new DteEngineError('dte_invalid', 'A DTE to enclose is empty');
  return canonicalizeInContext(root, CONTEXT);
}

interface DteInfo {
  text: string;
  tipoDte: number;
  rutEmisor: string;
  documentId: string;
}

function readDte(bytes: Buffer, i: number): DteInfo {
  const text = decodeXml(bytes)
    .replace(/^\uFEFF?\s*<\?xml[^?]*\?>\s*/, '')
    .trimEnd();
  if (!/^<DTE[\s>]/.test(text)) throw new DteEngineError('dte_invalid', `dtes[${i}] is not a <DTE> document`, `dtes[${i}]`);
  if (!isLatin1(text)) throw new DteEngineError('unsupported_character', `dtes[${i}] has characters outside ISO-8859-1`, `dtes[${i}]`);
  if (!/<Signature[\s>]/.test(text)) throw new DteEngineError('dte_not_signed', `dtes[${i}] is not signed`, `dtes[${i}]`);
  const tipo = /<TipoDTE>\s*(\d+)\s*<\/TipoDTE>/.exec(text)?.[1];
  const rut = /<RUTEmisor>\s*([0-9]+-[0-9Kk])\s*<\/RUTEmisor>/.exec(text)?.[1];
  const id = /<(?:Documento|Liquidacion|Exportaciones)\s+ID\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (!tipo || !rut || !id) throw new DteEngineError('dte_invalid', `dtes[${i}] has no TipoDTE/RUTEmisor/Documento ID`, `dtes[${i}]`);
  return { text, tipoDte: Number(tipo), rutEmisor: toSiiRut(rut), documentId: id };
}

export function buildEnvelope(input: BuildEnvelopeInput): BuiltEnvelope {
  const signer = prepareSigner(input.signer);
  assertSignerValidAt(signer, input.now);
  if (!Array.isArray(input.dtes) || input.dtes.length === 0)
    throw new DteEngineError('required_field', 'An envelope needs at least one DTE', 'dtes');
  const rutEmisor = toSiiRut(input.rutEmisor, 'rutEmisor');
  const rutEnviaRaw = input.rutEnvia ?? signer.rutTitular;
  if (!rutEnviaRaw) {
    throw new DteEngineError('rut_envia_unknown', 'The certificate carries no SII RUT (OID 1.3.6.1.4.1.8321.1): pass rutEnvia', 'rutEnvia');
  }
  const rutEnvia = toSiiRut(rutEnviaRaw, 'rutEnvia');
  const rutReceptor = toSiiRut(input.rutReceptor ?? RUT_SII, 'rutReceptor');
  const fechaResolucion = checkSiiDate(input.fechaResolucion, 'fechaResolucion');
  if (!Number.isSafeInteger(input.numeroResolucion) || input.numeroResolucion < 0 || input.numeroResolucion > 999_999) {
    throw new DteEngineError('invalid_field', 'numeroResolucion must be an integer 0..999999', 'numeroResolucion');
  }
  const setId = input.setId ?? 'SetDoc';
  if (!/^[A-Za-z_][\w.-]*$/.test(setId)) throw new DteEngineError('invalid_field', 'setId must be an XML NCName', 'setId');

  const dtes = input.dtes.map((b, i) => readDte(b, i));
  const kind = envelopeKindFor(dtes[0]?.tipoDte ?? 0);
  const counts = new Map<number, number>();
  const ids = new Set<string>([setId]);
  dtes.forEach((d, i) => {
    // IDs are xs:ID: unique in the file, or the envelope fails the schema.
    if (ids.has(d.documentId)) {
      throw new DteEngineError(
        'envelope_duplicate_document',
        `dtes[${i}] repeats the document ID ${d.documentId} (same type and folio twice?)`,
        `dtes[${i}]`,
      );
    }
    ids.add(d.documentId);
    if (envelopeKindFor(d.tipoDte) !== kind) {
      throw new DteEngineError(
        'envelope_mixed_kinds',
        'Boletas (39, 41) travel in an EnvioBOLETA and other DTEs in an EnvioDTE: send them separately',
        `dtes[${i}]`,
      );
    }
    if (d.rutEmisor !== rutEmisor) {
      throw new DteEngineError('envelope_rut_mismatch', `dtes[${i}] was issued by ${d.rutEmisor}, not by ${rutEmisor}`, `dtes[${i}]`);
    }
    counts.set(d.tipoDte, (counts.get(d.tipoDte) ?? 0) + 1);
  });
  const max = kind === 'EnvioBOLETA' ? MAX_DTE_PER_ENVIO_BOLETA : MAX_DTE_PER_ENVIO_DTE;
  if (dtes.length > max) throw new DteEngineError('envelope_too_large', `An ${kind} holds at most ${max} documents`, 'dtes');

  const timestamp = siiTimestamp(input.now, input.timeZone ?? SII_TIME_ZONE);
  const subTotales = [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([tipoDte, cantidad]) => ({ tipoDte, cantidad }));
  const caratula = breakLines(
    '<Caratula version="1.0">' +
      el('RutEmisor', rutEmisor) +
      el('RutEnvia', rutEnvia) +
      el('RutReceptor', rutReceptor) +
      el('FchResol', fechaResolucion) +
      el('NroResol', input.numeroResolucion) +
      el('TmstFirmaEnv', timestamp) +
      subTotales.map((s) => `<SubTotDTE>${el('TpoDTE', s.tipoDte)}${el('NroDTE', s.cantidad)}</SubTotDTE>`).join('') +
      '</Caratula>',
  );
  // One element per line (xml-lines.ts): the carátula cut above, each DTE on lines of its own (as
  // stored: ours are cut by the engine, a foreign one is spliced as it came), a line feed between
  // parts. The same whitespace is in the digested SetDTE and in the file.
  const canonicalSet =
    `<SetDTE xmlns="${NS_SII}" xmlns:xsi="${NS_XSI}" ID="${setId}">\n` +
    caratula +
    '\n' +
    dtes.map((d) => canonicalInEnvelope(d.text)).join('\n') +
    '\n</SetDTE>';
  const xsiDecl = ` xmlns:xsi="${NS_XSI}"`;
  const signature = buildSignature(setId, canonicalSet, signer, { signedInfoInheritedNs: xsiDecl, signedInfoEmittedNs: xsiDecl });
  const schema = kind === 'EnvioBOLETA' ? 'EnvioBOLETA_v11.xsd' : 'EnvioDTE_v10.xsd';
  const xml =
    `${XML_DECLARATION}\n` +
    `<${kind} xmlns="${NS_SII}" xmlns:xsi="${NS_XSI}" xsi:schemaLocation="${NS_SII} ${schema}" version="1.0">\n` +
    `<SetDTE ID="${setId}">\n${caratula}\n${dtes.map((d) => d.text).join('\n')}\n</SetDTE>\n` +
    signature +
    `\n</${kind}>`;
  return { kind, xml: Buffer.from(xml, 'latin1'), setId, rutEnvia, subTotales, timestamp };
}
