import { buildTed } from './ted.ts';
import type { Ted } from './ted.ts';
import type { Caf } from './caf.ts';
import { isCafExpired } from './caf.ts';
import { DteEngineError } from './errors.ts';
import { checkFolio } from './normalize.ts';
import type { NormalizedDte } from './normalize.ts';
import { prepareDte } from './prepare.ts';
import type { PreparedDte } from './prepare.ts';
import type { Totals } from './amounts.ts';
import { siiDate, siiTimestamp, SII_TIME_ZONE } from './dates.ts';
import { el } from './xml-escape.ts';
import { breakLines } from './xml-lines.ts';
import { assertSignerValidAt, pendingSignature, prepareSigner, signAsync, signNow } from './xmldsig.ts';
import type { PendingSignature, PreparedSigner } from './xmldsig.ts';
import type { DteInput, SignerInput, TipoDte } from './types.ts';

/**
 * The document pipeline in two steps (README.md, "Pipeline"): `prepareDte` (prepare.ts: normalise
 * + validate, totals) needs no folio; `issueDte` takes the prepared document and a folio: XML body
 * (strategies/) → stamp (ted.ts) → TmstFirma → sign (xmldsig.ts).
 *
 * Output shape (LibreDTE's approach): the namespace is declared on <DTE> itself and the DTE is
 * signed as a standalone document, so the Documento digest is the same wherever the DTE is later
 * embedded or extracted (README.md explains why signing never parses). Bytes are ISO-8859-1 and must never be re-serialised:
 * envelope.ts splices them verbatim.
 */
export const NS_SII = 'http://www.sii.cl/SiiDte';
export const XML_DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1"?>';
/** Exactly how our DTEs open: canonical attribute order (namespace declarations first). */
export const DTE_OPEN_TAG = `<DTE xmlns="${NS_SII}" version="1.0">`;

export interface IssueDteOptions {
  /** The folio the CAF authorizes for this document. */
  folio: number;
  caf: Caf;
  signer: SignerInput | PreparedSigner;
  /** The clock: TSTED, TmstFirma and the CAF expiry check use it. */
  now: Date;
  /** Zone for the local timestamps; default America/Santiago. */
  timeZone?: string;
}

export type BuildDteOptions = Omit<IssueDteOptions, 'folio'>;

export interface BuiltDte {
  tipoDte: TipoDte;
  folio: number;
  /** Documento/@ID, `F{folio}T{tipo}`. */
  documentId: string;
  /** The signed DTE, ISO-8859-1 with its XML declaration: store and send these exact bytes. */
  xml: Buffer;
  /** TED element flattened, ISO-8859-1: the PDF417 payload. */
  tedBytes: Buffer;
  totals: Totals;
  rutEmisor: string;
  rutReceptor: string;
  fechaEmision: string;
  /** TmstFirma / TSTED. */
  timestamp: string;
  envelope: 'EnvioDTE' | 'EnvioBOLETA';
}

export function documentIdFor(tipoDte: number, folio: number): string {
  return `F${folio}T${tipoDte}`;
}

/** `<Documento>` content before the TED (Encabezado, Detalle, Referencia). */
export function buildDocumentBody(d: NormalizedDte): string {
  const s = d.strategy;
  return '<Encabezado>' + s.idDoc(d) + s.emisor(d) + s.receptor(d) + s.totales(d) + '</Encabezado>' + s.detalle(d) + s.referencias(d);
}

export function stampDocument(d: NormalizedDte, caf: Caf, timestamp: string): Ted {
  return buildTed({
    rutEmisor: d.emisor.rut,
    tipoDte: d.tipoDte,
    folio: d.folio,
    fechaEmision: d.fechaEmision,
    rutReceptor: d.receptor.rut,
    razonSocialReceptor: d.receptor.razonSocial,
    montoTotal: d.totals.montoTotal,
    primerItem: d.detalle[0]?.nombre ?? '',
    timestamp,
    caf,
  });
}

/**
 * Stamps and signs a prepared document with `folio`. Throws DteEngineError when the folio, the
 * CAF (expired, another type or issuer, folio outside its range) or the signer cannot be used.
 */
export function issueDte(prepared: PreparedDte, opts: IssueDteOptions): BuiltDte {
  const { signature, finish } = stampDte(prepared, opts);
  return finish(signNow(signature));
}

/**
 * `issueDte` with the document's RSA signature computed off this thread (xmldsig.ts `signAsync`):
 * the same bytes, for a service whose thread also serves requests. Errors are thrown before any
 * signing, as by `issueDte`. `sign` computes the value (default `signAsync`; the service batches
 * them, src/lib/turn-batch.ts).
 */
export async function issueDteAsync(
  prepared: PreparedDte,
  opts: IssueDteOptions,
  sign: (p: PendingSignature) => Promise<string> = signAsync,
): Promise<BuiltDte> {
  const { signature, finish } = stampDte(prepared, opts);
  return finish(await sign(signature));
}

/** Every step of `issueDte` but the RSA signature's value. */
function stampDte(prepared: PreparedDte, opts: IssueDteOptions): { signature: PendingSignature; finish: (value: string) => BuiltDte } {
  const signer = prepareSigner(opts.signer);
  assertSignerValidAt(signer, opts.now);
  const timeZone = opts.timeZone ?? SII_TIME_ZONE;
  const timestamp = siiTimestamp(opts.now, timeZone);
  const d: NormalizedDte = { ...prepared.document, folio: checkFolio(opts.folio) };
  if (isCafExpired(opts.caf, siiDate(opts.now, timeZone))) {
    throw new DteEngineError('caf_expired', `The CAF expired on ${opts.caf.vencimiento}: request new folios`, 'caf');
  }
  const ted = stampDocument(d, opts.caf, timestamp);
  const id = documentIdFor(d.tipoDte, d.folio);
  // Documento, Liquidacion (43) or Exportaciones (110–112): DTE_v10.xsd's three roots.
  const root = d.type.root;
  const body = buildDocumentBody(d);
  // One element per line (xml-lines.ts: the SII refuses lines over 4,090 characters), cut before
  // digesting so the breaks are part of the signed text. The TED is cut too; its FRMT stays over
  // the flattened DD, as the SII checks it (ted.ts).
  const content = breakLines(body + ted.xml + el('TmstFirma', timestamp)) + `\n</${root}>`;
  // Digest input: the root as C14N renders it standalone, with the default namespace it
  // inherits from <DTE> declared on it (apex of the node set). ID is its only attribute.
  const canonicalOpen = `<${root} xmlns="${NS_SII}" ID="${id}">\n`;
  const canonical = canonicalOpen + content;
  const signature = pendingSignature(id, canonical, signer);
  const finish = (value: string): BuiltDte => {
    // Digesting `canonical` made it one flat string; the document takes its content from there (a
    // slice) instead of walking the hundreds of concatenated parts of `content` a second time.
    const head = `${XML_DECLARATION}\n${DTE_OPEN_TAG}\n<${root} ID="${id}">\n`;
    const xml = Buffer.from(head + canonical.slice(canonicalOpen.length) + '\n' + signature.element(value) + '\n</DTE>', 'latin1');
    return {
      tipoDte: d.tipoDte,
      folio: d.folio,
      documentId: id,
      xml,
      // The flat TED (the PDF417 payload). A plain property: an object literal with a getter is
      // built slowly by V8 (docs/performance.md).
      tedBytes: ted.tedBytes,
      totals: d.totals,
      rutEmisor: d.emisor.rut,
      rutReceptor: d.receptor.rut,
      fechaEmision: d.fechaEmision,
      timestamp,
      envelope: d.type.envelope,
    };
  };
  return { signature, finish };
}

/** Both steps at once, for callers that already hold the folio (tests, benchmarks, the emulator). */
export function buildDte(input: DteInput, opts: BuildDteOptions): BuiltDte {
  return issueDte(prepareDte(input), { ...opts, folio: input.folio });
}
