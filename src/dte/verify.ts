import { createPublicKey, verify as rsaVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { canonicalize, childElements, childText, firstChild, parseXml } from './c14n.ts';
import { decodeXml, detectEncoding, flattenXml } from './xml-decode.ts';
import type { XmlEncoding } from './xml-decode.ts';
import { parseCafBlock, verifyCaf } from './caf.ts';
import type { Caf } from './caf.ts';
import { siiDate } from './dates.ts';
import { DteEngineError } from './errors.ts';
import { parseCertificate, rutFromCertificate } from './certificate.ts';
import { ALG_C14N, ALG_ENVELOPED, ALG_RSA_SHA1, ALG_SHA1, NS_DSIG, sha1Base64 } from './xmldsig.ts';
import { NS_SII } from './dte-xml.ts';
import { NS_XSI } from './envelope.ts';
import { tryParseRut, formatRutSii } from './rut.ts';
import type { SiiKeys } from './types.ts';

/**
 * Verification of foreign or stored documents the way the SII checks them (REFERENCE §6.2, §12):
 *  - envelope: signature over SetDTE *in context* (inherits the root's namespaces), carátula;
 *  - each DTE: its substring parsed *as its own document* (the SII splits envelopes), signature
 *    over Documento standalone; TED FRMT over the flattened ISO-8859-1 DD with the CAF key in the
 *    DD; CAF FRMA with the SII key of its IDK; folio within the CAF range; CAF expiry.
 * Verification keys come from the X509Certificate (the SII's own example has a KeyValue that does
 * not match its certificate, and verifies with the certificate).
 *
 * Codes: RSC, RFR, RCT (envelope states), DTE-3-505 and CAF-3-517 are the SII's own; the others
 * follow its `SECTION-LEVEL-NUMBER` style but are this engine's choice:
 *   DTE-3-500 malformed document, TED-3-510 bad FRMT, TED-3-511 TED data ≠ document,
 *   CAF-3-516 CAF signature invalid or IDK unknown, CAF-3-518 folio outside the CAF range,
 *   CAF-3-519 CAF for another issuer or document type.
 */
export interface VerificationIssue {
  /** SII-style code. */
  code: string;
  /** Stable snake_case name of the failed check. */
  check: string;
  message: string;
}

export type SchemaKind = 'DTE' | 'EnvioDTE' | 'EnvioBOLETA';

export interface SchemaValidationResult {
  valid: boolean;
  errors: string[];
}

/** Injected schema validation (I/O or wasm lives with the caller), see schema-validator.ts. */
export type SchemaValidator = (xml: Buffer, kind: SchemaKind) => SchemaValidationResult | Promise<SchemaValidationResult>;

export interface VerifyOptions {
  siiKeys: SiiKeys;
  /** When given, a CAF whose vencimiento is on or before this (Chile) date is CAF-3-517. */
  now?: Date;
  schemaValidator?: SchemaValidator;
  /** Envelope only: the expected Caratula/RutReceptor (60803000-K for the SII). */
  expectedRutReceptor?: string;
}

export interface DteVerification {
  valid: boolean;
  documentId: string | null;
  tipoDte: number | null;
  folio: number | null;
  rutEmisor: string | null;
  rutReceptor: string | null;
  fechaEmision: string | null;
  montoTotal: number | null;
  /** Signature needed the SiiDte namespace the DTE had inherited from its envelope. */
  namespaceInherited: boolean;
  caf: { idk: number; desde: number; hasta: number; vencimiento: string | null } | null;
  errors: VerificationIssue[];
  warnings: VerificationIssue[];
}

export interface EnvelopeVerification {
  valid: boolean;
  kind: 'EnvioDTE' | 'EnvioBOLETA' | null;
  /** Envelope-level problems (the whole upload is rejected). */
  errors: VerificationIssue[];
  warnings: VerificationIssue[];
  caratula: {
    rutEmisor: string | null;
    rutEnvia: string | null;
    rutReceptor: string | null;
    fechaResolucion: string | null;
    numeroResolucion: number | null;
    subTotales: { tipoDte: number; cantidad: number }[];
  } | null;
  dtes: DteVerification[];
}

function issue(code: string, check: string, message: string): VerificationIssue {
  return { code, check, message };
}

function dsigChild(e: Element, name: string): Element | undefined {
  return childElements(e, name).find((c) => c.namespaceURI === NS_DSIG);
}

interface SignatureParts {
  signedInfo: Element;
  referenceUri: string;
  digestValue: string;
  signatureValue: Buffer;
  certKey: KeyObject | null;
  certDer: Buffer | null;
  keyValueKey: KeyObject | null;
}

function readSignature(sig: Element): SignatureParts | string {
  const si = dsigChild(sig, 'SignedInfo');
  if (!si) return 'Signature has no SignedInfo';
  const c14nAlg = dsigChild(si, 'CanonicalizationMethod')?.getAttribute('Algorithm');
  if (c14nAlg !== ALG_C14N) return `CanonicalizationMethod must be inclusive C14N 1.0, found ${String(c14nAlg)}`;
  const sigAlg = dsigChild(si, 'SignatureMethod')?.getAttribute('Algorithm');
  if (sigAlg !== ALG_RSA_SHA1) return `SignatureMethod must be rsa-sha1, found ${String(sigAlg)}`;
  const refs = childElements(si, 'Reference');
  if (refs.length !== 1 || !refs[0]) return 'SignedInfo must have exactly one Reference';
  const ref = refs[0];
  const transforms = dsigChild(ref, 'Transforms');
  for (const t of transforms ? childElements(transforms, 'Transform') : []) {
    const alg = t.getAttribute('Algorithm');
    if (alg !== ALG_C14N && alg !== ALG_ENVELOPED) return `Unsupported Transform ${String(alg)}`;
  }
  if (dsigChild(ref, 'DigestMethod')?.getAttribute('Algorithm') !== ALG_SHA1) return 'DigestMethod must be sha1';
  const digestValue = (dsigChild(ref, 'DigestValue')?.textContent ?? '').replace(/\s+/g, '');
  const signatureValue = Buffer.from((dsigChild(sig, 'SignatureValue')?.textContent ?? '').replace(/\s+/g, ''), 'base64');
  const keyInfo = dsigChild(sig, 'KeyInfo');
  let certKey: KeyObject | null = null;
  let certDer: Buffer | null = null;
  let keyValueKey: KeyObject | null = null;
  if (keyInfo) {
    const certText = keyInfo.getElementsByTagNameNS(NS_DSIG, 'X509Certificate').item(0)?.textContent;
    if (certText) {
      try {
        certDer = Buffer.from(certText.replace(/\s+/g, ''), 'base64');
        certKey = parseCertificate(certDer).publicKey;
      } catch {
        certKey = null;
      }
    }
    const mod = keyInfo.getElementsByTagNameNS(NS_DSIG, 'Modulus').item(0)?.textContent;
    const exp = keyInfo.getElementsByTagNameNS(NS_DSIG, 'Exponent').item(0)?.textContent;
    if (mod && exp) {
      try {
        const url = (t: string) => Buffer.from(t.replace(/\s+/g, ''), 'base64').toString('base64url');
        keyValueKey = createPublicKey({ key: { kty: 'RSA', n: url(mod), e: url(exp) }, format: 'jwk' });
      } catch {
        keyValueKey = null;
      }
    }
  }
  return { signedInfo: si, referenceUri: refs[0].getAttribute('URI') ?? '', digestValue, signatureValue, certKey, certDer, keyValueKey };
}

function sameKey(a: KeyObject, b: KeyObject): boolean {
  const x = a.export({ format: 'jwk' });
  const y = b.export({ format: 'jwk' });
  return x.n === y.n && x.e === y.e;
}

/**
 * Checks digest and SignatureValue. `digestContexts` are tried in order (the first is the strict
 * one); the index of the one that matched is returned.
 */
function checkSignature(
  parts: SignatureParts,
  referenced: Element,
  digestContexts: readonly (ReadonlyMap<string, string> | undefined)[],
  warnings: VerificationIssue[],
  code: string,
): { ok: true; contextIndex: number } | { ok: false; message: string } {
  let contextIndex = -1;
  for (let i = 0; i < digestContexts.length; i++) {
    const extra = digestContexts[i];
    const c = canonicalize(referenced, extra ? { extraInherited: extra } : {});
    if (sha1Base64(c) === parts.digestValue) {
      contextIndex = i;
      break;
    }
  }
  if (contextIndex < 0)
    return { ok: false, message: 'The digest of the signed element does not match DigestValue (the content was altered)' };
  const keys: { key: KeyObject; via: 'certificate' | 'keyvalue' }[] = [];
  if (parts.certKey) keys.push({ key: parts.certKey, via: 'certificate' });
  if (parts.keyValueKey && !(parts.certKey && sameKey(parts.certKey, parts.keyValueKey)))
    keys.push({ key: parts.keyValueKey, via: 'keyvalue' });
  if (keys.length === 0) return { ok: false, message: 'The signature carries no usable X509Certificate or KeyValue' };
  // SignedInfo is canonicalised in its own document context; also try with xmlns:xsi inherited,
  // as when the element was signed inside an envelope root that declares it.
  for (const { key, via } of keys) {
    for (const extra of [undefined, new Map([['xsi', NS_XSI]])]) {
      const si = canonicalize(parts.signedInfo, extra ? { extraInherited: extra } : {});
      let ok = false;
      try {
        ok = rsaVerify('sha1', Buffer.from(si, 'utf8'), key, parts.signatureValue);
      } catch {
        ok = false; // malformed key or signature
      }
      if (!ok) continue;
      if (via === 'keyvalue') {
        // The SII's own 2003 example is like this: signed with the KeyValue key, which is not the
        // certificate's. Accepted, but the signer is then not proven to be the certificate holder.
        warnings.push(
          issue(
            code,
            parts.certKey ? 'keyvalue_not_certificate' : 'certificate_missing',
            'The signature verifies with KeyValue, not with the X509Certificate key',
          ),
        );
      }
      return { ok: true, contextIndex };
    }
  }
  return { ok: false, message: 'SignatureValue does not verify with the certificate key' };
}

function numberOrNull(s: string | undefined): number | null {
  if (s === undefined || s === '' || !/^\d+$/.test(s)) return null;
  return Number(s);
}

function siiRutOrNull(s: string | undefined): string | null {
  const r = s ? tryParseRut(s) : null;
  return r ? formatRutSii(r) : null;
}

function sourceText(bytes: Buffer, encoding: XmlEncoding): string {
  // Byte-faithful view for signatures over raw bytes (TED, CAF): one char per byte unless UTF-8.
  return encoding === 'utf-8' ? decodeXml(bytes, 'utf-8') : bytes.toString('latin1');
}

function latin1Bytes(s: string): Buffer | null {
  return /[^\u0000-\u00FF]/.test(s) ? null : Buffer.from(s, 'latin1');
}

function verifyTed(documento: Element, source: string, out: DteVerification, opts: VerifyOptions): void {
  const ted = firstChild(documento, 'TED');
  const dd = ted ? firstChild(ted, 'DD') : undefined;
  const frmtText = ted ? firstChild(ted, 'FRMT')?.textContent : undefined;
  const rawDd = /<DD>[\s\S]*?<\/DD>/.exec(source)?.[0];
  if (!ted || !dd || !frmtText || !rawDd) {
    out.errors.push(issue('TED-3-510', 'ted_missing', 'The document has no complete TED (DD and FRMT)'));
    return;
  }
  const rawCaf = /<CAF(?:\s[^>]*)?>[\s\S]*?<\/CAF>/.exec(rawDd)?.[0];
  let caf: Caf | null = null;
  try {
    if (!rawCaf) throw new DteEngineError('caf_invalid', 'no CAF');
    caf = parseCafBlock(rawCaf);
  } catch (e) {
    out.errors.push(issue('CAF-3-516', 'caf_invalid', `The CAF inside the TED cannot be read: ${(e as Error).message}`));
  }
  // FRMT: over the raw flattened DD (what signers sign), else over its canonical form.
  if (caf) {
    const frmt = Buffer.from(frmtText.replace(/\s+/g, ''), 'base64');
    const candidates = [flattenXml(rawDd), flattenXml(canonicalize(dd, { ignoreAncestors: true }))];
    const ok = candidates.some((c) => {
      const b = latin1Bytes(c);
      try {
        return b !== null && rsaVerify('sha1', b, caf.publicKeyObject, frmt);
      } catch {
        return false;
      }
    });
    if (!ok)
      out.errors.push(
        issue('TED-3-510', 'ted_signature', 'The TED signature (FRMT) does not verify with the CAF key: the stamped data was altered'),
      );
  }
  // TED data must be the document's.
  const pairs: [string, string | null, string | number | null][] = [
    ['RE', childText(dd, ['RE']) ?? null, out.rutEmisor],
    ['TD', childText(dd, ['TD']) ?? null, out.tipoDte],
    ['F', childText(dd, ['F']) ?? null, out.folio],
    ['FE', childText(dd, ['FE']) ?? null, out.fechaEmision],
    ['RR', childText(dd, ['RR']) ?? null, out.rutReceptor],
    ['MNT', childText(dd, ['MNT']) ?? null, out.montoTotal],
  ];
  for (const [name, tedValue, docValue] of pairs) {
    if (tedValue === null || docValue === null || tedValue !== String(docValue)) {
      out.errors.push(issue('TED-3-511', 'ted_data', `TED ${name} (${String(tedValue)}) differs from the document (${String(docValue)})`));
    }
  }
  if (!caf) return;
  out.caf = { idk: caf.idk, desde: caf.desde, hasta: caf.hasta, vencimiento: caf.vencimiento };
  const cv = verifyCaf(caf, opts.siiKeys);
  for (const e of cv.errors) out.errors.push(issue('CAF-3-516', e.code === 'unknown_idk' ? 'caf_unknown_idk' : 'caf_signature', e.message));
  if (out.tipoDte !== null && caf.tipoDte !== out.tipoDte) {
    out.errors.push(issue('CAF-3-519', 'caf_type_mismatch', `The CAF authorizes type ${caf.tipoDte}, the document is type ${out.tipoDte}`));
  }
  if (out.rutEmisor !== null && caf.rutEmisor !== out.rutEmisor) {
    out.errors.push(issue('CAF-3-519', 'caf_rut_mismatch', `The CAF belongs to ${caf.rutEmisor}, the document to ${out.rutEmisor}`));
  }
  if (out.folio !== null && (out.folio < caf.desde || out.folio > caf.hasta)) {
    out.errors.push(issue('CAF-3-518', 'folio_out_of_range', `Folio ${out.folio} is outside the CAF range ${caf.desde}-${caf.hasta}`));
  }
  if (caf.vencimiento !== null) {
    const fe = out.fechaEmision;
    const today = opts.now ? siiDate(opts.now) : null;
    if ((fe !== null && fe >= caf.vencimiento) || (today !== null && today >= caf.vencimiento)) {
      out.errors.push(issue('CAF-3-517', 'caf_expired', `The CAF expired on ${caf.vencimiento}`));
    }
  }
}

function emptyDteResult(): DteVerification {
  return {
    valid: false,
    documentId: null,
    tipoDte: null,
    folio: null,
    rutEmisor: null,
    rutReceptor: null,
    fechaEmision: null,
    montoTotal: null,
    namespaceInherited: false,
    caf: null,
    errors: [],
    warnings: [],
  };
}

/** Synchronous core of verifyDte (no schema validation). */
export function verifyDteSync(bytes: Buffer, opts: VerifyOptions): DteVerification {
  const out = emptyDteResult();
  const encoding = detectEncoding(bytes);
  let root: Element | null;
  try {
    root = parseXml(decodeXml(bytes, encoding)).documentElement;
  } catch (e) {
    out.errors.push(issue('DTE-3-500', 'xml_malformed', (e as Error).message));
    return out;
  }
  if (!root || root.localName !== 'DTE') {
    out.errors.push(issue('DTE-3-500', 'not_a_dte', 'The root element is not <DTE>'));
    return out;
  }
  const documento = childElements(root).find((c) => c.namespaceURI !== NS_DSIG && c.hasAttribute('ID'));
  if (!documento) {
    out.errors.push(issue('DTE-3-500', 'documento_missing', 'The DTE has no Documento with an ID'));
    return out;
  }
  out.documentId = documento.getAttribute('ID');
  out.tipoDte = numberOrNull(childText(documento, ['Encabezado', 'IdDoc', 'TipoDTE']));
  out.folio = numberOrNull(childText(documento, ['Encabezado', 'IdDoc', 'Folio']));
  out.fechaEmision = childText(documento, ['Encabezado', 'IdDoc', 'FchEmis']) ?? null;
  out.rutEmisor = siiRutOrNull(childText(documento, ['Encabezado', 'Emisor', 'RUTEmisor']));
  out.rutReceptor = siiRutOrNull(childText(documento, ['Encabezado', 'Receptor', 'RUTRecep']));
  out.montoTotal = numberOrNull(childText(documento, ['Encabezado', 'Totales', 'MntTotal']));

  const sig = dsigChild(root, 'Signature');
  if (!sig) {
    out.errors.push(issue('DTE-3-505', 'dte_signature', 'The DTE is not signed'));
  } else {
    const parts = readSignature(sig);
    if (typeof parts === 'string') {
      out.errors.push(issue('DTE-3-505', 'dte_signature', parts));
    } else if (parts.referenceUri !== `#${out.documentId}`) {
      out.errors.push(issue('DTE-3-505', 'dte_signature', `The signature references ${parts.referenceUri}, not #${out.documentId}`));
    } else {
      // Strict: as extracted. Lenient: DTEs cut out of an envelope without re-declaring the SiiDte
      // namespace they were signed under (real SII portal documents) — reported as a warning.
      const ownDefault = root.getAttribute('xmlns');
      const contexts = ownDefault ? [undefined] : [undefined, new Map([['', NS_SII]])];
      const r = checkSignature(parts, documento, contexts, out.warnings, 'DTE-3-505');
      if (!r.ok) out.errors.push(issue('DTE-3-505', 'dte_signature', r.message));
      else if (r.contextIndex === 1) {
        out.namespaceInherited = true;
        out.warnings.push(
          issue(
            'DTE-3-505',
            'namespace_inherited',
            'The signature verifies only with the SiiDte namespace the DTE lost when it was extracted',
          ),
        );
      }
    }
  }
  verifyTed(documento, sourceText(bytes, encoding), out, opts);
  out.valid = out.errors.length === 0;
  return out;
}

/** Verifies one DTE as a standalone document (optionally schema-validating it first). */
export async function verifyDte(bytes: Buffer, opts: VerifyOptions): Promise<DteVerification> {
  const out = verifyDteSync(bytes, opts);
  if (opts.schemaValidator && (out.tipoDte === 39 || out.tipoDte === 41)) {
    // No schema declares a standalone boleta (BOLETADefType exists only inside EnvioBOLETA).
    out.warnings.push(issue('RSC', 'schema_not_applicable', 'Boletas can only be schema-validated inside an EnvioBOLETA'));
  } else if (opts.schemaValidator) {
    const r = await opts.schemaValidator(bytes, 'DTE');
    if (!r.valid) {
      out.errors.unshift(issue('RSC', 'schema', `Not valid against the SII schema: ${r.errors.slice(0, 3).join('; ')}`));
      out.valid = false;
    }
  }
  return out;
}

/** Synchronous core of verifyEnvelope (no schema validation). */
export function verifyEnvelopeSync(bytes: Buffer, opts: VerifyOptions): EnvelopeVerification {
  const out: EnvelopeVerification = { valid: false, kind: null, errors: [], warnings: [], caratula: null, dtes: [] };
  const encoding = detectEncoding(bytes);
  const text = decodeXml(bytes, encoding);
  let root: Element | null;
  try {
    root = parseXml(text).documentElement;
  } catch (e) {
    out.errors.push(issue('RSC', 'xml_malformed', (e as Error).message));
    return out;
  }
  if (!root || (root.localName !== 'EnvioDTE' && root.localName !== 'EnvioBOLETA')) {
    out.errors.push(issue('RSC', 'not_an_envelope', 'The root element is not EnvioDTE or EnvioBOLETA'));
    return out;
  }
  out.kind = root.localName;
  const set = firstChild(root, 'SetDTE');
  const sig = dsigChild(root, 'Signature');
  if (!set) {
    out.errors.push(issue('RSC', 'setdte_missing', 'The envelope has no SetDTE'));
    return out;
  }
  if (!sig) out.errors.push(issue('RFR', 'envelope_signature', 'The envelope is not signed'));
  let envelopeCert: Buffer | null = null;
  if (sig) {
    const parts = readSignature(sig);
    if (typeof parts === 'string') out.errors.push(issue('RFR', 'envelope_signature', parts));
    else if (parts.referenceUri !== `#${set.getAttribute('ID') ?? ''}`) {
      out.errors.push(issue('RFR', 'envelope_signature', `The signature references ${parts.referenceUri}, not the SetDTE`));
    } else {
      envelopeCert = parts.certDer;
      if (opts.now && parts.certDer) {
        const x = parseCertificate(parts.certDer);
        if (opts.now.getTime() > new Date(x.validTo).getTime() || opts.now.getTime() < new Date(x.validFrom).getTime()) {
          out.errors.push(
            issue(
              'RFR',
              'certificate_expired',
              `The envelope's signing certificate is not valid now (valid ${x.validFrom} to ${x.validTo})`,
            ),
          );
        }
      }
      const r = checkSignature(parts, set, [undefined], out.warnings, 'RFR');
      if (!r.ok) out.errors.push(issue('RFR', 'envelope_signature', r.message));
    }
  }

  const car = firstChild(set, 'Caratula');
  const subTotales = car
    ? childElements(car, 'SubTotDTE').map((s) => ({
        tipoDte: Number(childText(s, ['TpoDTE'])),
        cantidad: Number(childText(s, ['NroDTE'])),
      }))
    : [];
  out.caratula = car
    ? {
        rutEmisor: siiRutOrNull(childText(car, ['RutEmisor'])),
        rutEnvia: siiRutOrNull(childText(car, ['RutEnvia'])),
        rutReceptor: siiRutOrNull(childText(car, ['RutReceptor'])),
        fechaResolucion: childText(car, ['FchResol']) ?? null,
        numeroResolucion: numberOrNull(childText(car, ['NroResol'])),
        subTotales,
      }
    : null;
  if (!out.caratula) out.errors.push(issue('RCT', 'caratula_missing', 'The SetDTE has no Caratula'));

  // Each DTE verified standalone, from its own bytes.
  const raw = sourceText(bytes, encoding);
  const decl = `<?xml version="1.0" encoding="${encoding === 'utf-8' ? 'UTF-8' : encoding === 'windows-1252' ? 'windows-1252' : 'ISO-8859-1'}"?>\n`;
  for (const m of raw.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)) {
    const dteBytes = Buffer.from(decl + m[0], encoding === 'utf-8' ? 'utf8' : 'latin1');
    out.dtes.push(verifyDteSync(dteBytes, opts));
  }

  const c = out.caratula;
  if (c) {
    if (envelopeCert) {
      const certRut = rutFromCertificate(envelopeCert);
      if (certRut === null)
        out.warnings.push(issue('RCT', 'rut_envia_unverifiable', 'The signing certificate carries no SII RUT to compare with RutEnvia'));
      else if (certRut !== c.rutEnvia)
        out.errors.push(issue('RCT', 'rut_envia_mismatch', `RutEnvia ${String(c.rutEnvia)} is not the certificate holder ${certRut}`));
    }
    if (opts.expectedRutReceptor !== undefined && c.rutReceptor !== siiRutOrNull(opts.expectedRutReceptor)) {
      out.errors.push(issue('RCT', 'rut_receptor', `Caratula RutReceptor ${String(c.rutReceptor)} should be ${opts.expectedRutReceptor}`));
    }
    const counts = new Map<number, number>();
    out.dtes.forEach((d, i) => {
      if (d.tipoDte !== null) counts.set(d.tipoDte, (counts.get(d.tipoDte) ?? 0) + 1);
      if (d.rutEmisor !== c.rutEmisor) {
        out.errors.push(
          issue(
            'RCT',
            'rut_emisor_mismatch',
            `DTE #${i + 1} was issued by ${String(d.rutEmisor)}, the carátula says ${String(c.rutEmisor)}`,
          ),
        );
      }
    });
    const declared = new Map(c.subTotales.map((s) => [s.tipoDte, s.cantidad]));
    const types = new Set([...counts.keys(), ...declared.keys()]);
    for (const t of types) {
      if ((counts.get(t) ?? 0) !== (declared.get(t) ?? 0)) {
        out.errors.push(
          issue(
            'RCT',
            'subtotal_mismatch',
            `SubTotDTE says ${declared.get(t) ?? 0} documents of type ${t}, the envelope has ${counts.get(t) ?? 0}`,
          ),
        );
      }
    }
  }
  out.valid = out.errors.length === 0 && out.dtes.length > 0 && out.dtes.every((d) => d.valid);
  return out;
}

/** Verifies an EnvioDTE/EnvioBOLETA: schema (if a validator is given), envelope, every DTE. */
export async function verifyEnvelope(bytes: Buffer, opts: VerifyOptions): Promise<EnvelopeVerification> {
  const out = verifyEnvelopeSync(bytes, opts);
  if (opts.schemaValidator && out.kind) {
    const r = await opts.schemaValidator(bytes, out.kind);
    if (!r.valid) {
      out.errors.unshift(issue('RSC', 'schema', `Not valid against the SII schema: ${r.errors.slice(0, 3).join('; ')}`));
      out.valid = false;
    }
  }
  return out;
}
