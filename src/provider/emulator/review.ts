import crypto from 'node:crypto';
import { siiDate, verifyEnvelope, type SchemaValidator, type SiiKeys, type VerificationIssue } from '../../dte/index.ts';
import type { Sql } from '../../db/types.ts';
import { DOCUMENT_TRIGGERS, SANDBOX_CODES } from './sandbox.ts';
import { emulatorStore, type EmuDocumentOutcome, type EmuDocumentRow, type EmuStats } from './store.ts';
import { DOCUMENT_DESCRIPCION, ENVELOPE_GLOSA, lineTooLong, MAX_UPLOAD_LINE } from './texts.ts';
import { amountFindings } from './rules/amounts.ts';
import { finding, levelOf, type Finding } from './rules/findings.ts';
import { formFindings } from './rules/form.ts';
import { annulmentFinding, NOTES, readReferences, referenceFindings } from './rules/references.ts';
import { decode, num, text } from './rules/xml.ts';

/**
 * The emulated SII's review of an uploaded envelope (docs/sources.md §10, §12), in two steps:
 *
 * 1. `inspectEnvelope` (pure, CPU): the engine's verifier checks schema, the envelope signature in
 *    context, the carátula, and every DTE standalone (signature, TED, CAF signature and range,
 *    CAF expiry); we add what a verifier cannot know: the uploader vs RutEnvia, certificate
 *    validity, and the totals (reparos).
 * 2. `judgeDocuments` (in the emulator's transaction): what needs the SII's records — the folio
 *    not received before (DTE-3-101), the CAF granted to this issuer, annulled folios, referenced
 *    documents received — then records each accepted document, so a folio is received once.
 *
 * Decisions (documented in docs/emulator.md):
 *  - envelope-level failures reject the whole upload: RSC (schema, malformed) before RFR
 *    (signature, signer's certificate) before RCT (carátula);
 *  - the document model's rules, each in its file under rules/ with its source: form
 *    (form.ts, export-form.ts: level 3, HED-2-804 a reparo), references (references.ts: level 3;
 *    REF-2-780, which needs the referenced document, here), amounts (amounts.ts and the files it
 *    calls: reparos, never rejections, "No se rechazan documentos por errores de contenido",
 *    SII-FORMATO §2.2). Everything level 3 rejects the document;
 *  - a rejected document does not take its folio (it can be issued again); a document the SII
 *    received before with the same (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep) is rejected
 *    as DTE-3-100 "DTE Repetido" [C "Envio con boletas rechazadas"], so a resent envelope shows
 *    rejections while the first reception stands (consulta/dte answers DOK); a different document
 *    with a received folio is DTE-3-101;
 *  - a CAF is expired for a document stamped on or after its vencimiento, or received on or after
 *    it (CAF-3-517): send documents promptly.
 */
export interface InspectedDocument {
  tipoDte: number | null;
  folio: number | null;
  rutEmisor: string | null;
  rutReceptor: string | null;
  fechaEmision: string | null;
  montoTotal: number | null;
  iva: number | null;
  digest: string;
  cafModulus: string | null;
  /** Electronic documents referenced (IndGlobal ones left out): to find among the SII's records. */
  references: DocumentReference[];
  findings: Finding[];
  razonSocialReceptor: string;
}

export interface DocumentReference {
  tipoDte: number;
  folio: number;
  codRef: string | null;
  /** RUTOtr: a document of another taxpayer [SII-FORMATO §E field 5]. */
  rutOtr: string | null;
}

export interface InspectedEnvelope {
  kind: 'EnvioDTE' | 'EnvioBOLETA' | null;
  rutEmisor: string | null;
  rutEnvia: string | null;
  rejection: { estado: 'RSC' | 'RFR' | 'RCT'; glosa: string } | null;
  documents: InspectedDocument[];
  slow: boolean;
  sha256: string;
}

function certificateValidity(b64: string | undefined): { notBefore: Date; notAfter: Date } | null {
  if (!b64) return null;
  try {
    const x = new crypto.X509Certificate(Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
    return { notBefore: new Date(x.validFrom), notAfter: new Date(x.validTo) };
  } catch {
    return null;
  }
}

/**
 * TmstFirma is a Chilean local time without offset; the certificate's validity is UTC. Compared
 * as Chilean calendar days, so a zone offset can never turn a valid signature into an invalid one.
 */
const signedOutside = (tmst: string | undefined, v: { notBefore: Date; notAfter: Date }): boolean => {
  if (!tmst) return false;
  const day = tmst.slice(0, 10);
  return day < siiDate(v.notBefore) || day > siiDate(v.notAfter);
};

const issueFinding = (i: VerificationIssue): Finding => finding(i.code, i.message);

export interface InspectOptions {
  siiKeys: SiiKeys;
  now: Date;
  schemaValidator?: SchemaValidator | undefined;
  /** The upload's declared kind (SimpleAPI `Tipo`). */
  tipo: 'dte' | 'boleta';
  /** RUT of the certificate the upload was made with. */
  rutUploader: string | null;
}

/** The first line (1-based) longer than the SII's parser takes, split at LF as it reads (texts.ts). */
function firstLongLine(bytes: Buffer): { line: number; length: number } | null {
  let start = 0;
  for (let n = 1; start <= bytes.length; n++) {
    const lf = bytes.indexOf(0x0a, start);
    const end = lf === -1 ? bytes.length : lf;
    if (end - start > MAX_UPLOAD_LINE) return { line: n, length: end - start };
    if (lf === -1) return null;
    start = lf + 1;
  }
  return null;
}

export async function inspectEnvelope(bytes: Buffer, opts: InspectOptions): Promise<InspectedEnvelope> {
  const v = await verifyEnvelope(bytes, {
    siiKeys: opts.siiKeys,
    now: opts.now,
    expectedRutReceptor: '60803000-K',
    ...(opts.schemaValidator ? { schemaValidator: opts.schemaValidator } : {}),
  });
  const raw = bytes.toString('latin1');
  const dteTexts = [...raw.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)].map((m) => m[0]);
  const byState: Record<'RSC' | 'RFR' | 'RCT', Finding[]> = { RSC: [], RFR: [], RCT: [] };
  const tooLong = firstLongLine(bytes);
  if (tooLong) byState.RSC.push({ codigo: 'RSC', descripcion: lineTooLong(tooLong.line, tooLong.length), detalle: null });
  for (const e of v.errors) {
    const state = e.code === 'RSC' || e.code === 'RFR' || e.code === 'RCT' ? e.code : 'RSC';
    byState[state].push({ codigo: state, descripcion: e.message, detalle: null });
  }
  if (v.kind && (v.kind === 'EnvioBOLETA') !== (opts.tipo === 'boleta')) {
    byState.RSC.push({ codigo: 'RSC', descripcion: `Tipo de envío (${opts.tipo}) no corresponde al archivo (${v.kind})`, detalle: null });
  }
  const envelopeCert = [...raw.matchAll(/<X509Certificate>([\s\S]*?)<\/X509Certificate>/g)].pop()?.[1];
  const validity = certificateValidity(envelopeCert);
  if (validity && (opts.now < validity.notBefore || opts.now > validity.notAfter)) {
    byState.RFR.push({ codigo: 'RFR', descripcion: 'El certificado que firma el envío no está vigente', detalle: null });
  }
  const rutEnvia = v.caratula?.rutEnvia ?? null;
  if (opts.rutUploader && rutEnvia && opts.rutUploader !== rutEnvia) {
    byState.RCT.push({
      codigo: 'CRT-3-11',
      descripcion: `RUT Envia (${rutEnvia}) diferente al Upload (${opts.rutUploader})`,
      detalle: null,
    });
  }
  let rejection: InspectedEnvelope['rejection'] = null;
  for (const estado of ['RSC', 'RFR', 'RCT'] as const) {
    if (byState[estado].length > 0) {
      rejection = { estado, glosa: `${ENVELOPE_GLOSA[estado]}: ${byState[estado].map((f) => f.descripcion).join('; ')}` };
      break;
    }
  }

  const receivedOn = siiDate(opts.now);
  const documents: InspectedDocument[] = v.dtes.map((d, i) => {
    const dte = dteTexts[i] ?? '';
    const findings = d.errors.map(issueFinding);
    const tmst = text(dte, 'TmstFirma');
    const certValidity = certificateValidity(text(dte.slice(dte.lastIndexOf('<Signature')), 'X509Certificate'));
    if (certValidity && signedOutside(tmst, certValidity)) findings.push(finding('DTE-3-506', `firmado el ${tmst}`));
    const fa = text(dte, 'FA');
    if (fa && d.fechaEmision && d.fechaEmision < fa)
      findings.push(finding('HED-3-305', `FchEmis ${d.fechaEmision}, CAF autorizado el ${fa}`));
    const tipoDte = d.tipoDte;
    if (tipoDte !== null) {
      findings.push(...formFindings(dte, tipoDte), ...referenceFindings(dte, tipoDte, receivedOn), ...amountFindings(dte, tipoDte));
    }
    const references: DocumentReference[] = [];
    for (const r of readReferences(dte)) {
      const t = num(r.tpoDocRef);
      const f = num(r.folioRef);
      if (t !== null && f !== null && ELECTRONIC_TYPES.has(t) && !r.indGlobal) {
        references.push({ tipoDte: t, folio: f, codRef: r.codRef ?? null, rutOtr: r.rutOtr ?? null });
      }
    }
    const rsapk = text(dte, 'RSAPK');
    return {
      tipoDte,
      folio: d.folio,
      rutEmisor: d.rutEmisor,
      rutReceptor: d.rutReceptor,
      fechaEmision: d.fechaEmision,
      montoTotal: d.montoTotal,
      iva: num(text(text(dte, 'Totales') ?? '', 'IVA')),
      digest: crypto.createHash('sha256').update(dte, 'latin1').digest('hex'),
      cafModulus: rsapk ? (text(rsapk, 'M') ?? '').replace(/\s+/g, '') : null,
      references,
      findings,
      razonSocialReceptor: decode(text(dte, 'RznSocRecep') ?? ''),
    };
  });
  return {
    kind: v.kind,
    rutEmisor: v.caratula?.rutEmisor ?? null,
    rutEnvia,
    rejection,
    documents,
    slow: documents.some((d) => DOCUMENT_TRIGGERS.slow.test(d.razonSocialReceptor)),
    sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
  };
}

/** The SII's "DTE Repetido" key: (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep) [C]; same bytes always are. */
function isRepeat(prior: EmuDocumentRow, d: InspectedDocument): boolean {
  if (prior.digest === d.digest) return true;
  return (
    prior.fecha_emision === d.fechaEmision &&
    prior.monto_total === d.montoTotal &&
    prior.rut_receptor === d.rutReceptor &&
    (prior.iva === null || prior.iva === d.iva)
  );
}

const ELECTRONIC_TYPES = new Set([33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112]);

/** Step 2: the checks against the SII's records, and the recording of received documents. */
export async function judgeDocuments(
  tx: Sql,
  env: InspectedEnvelope,
  ctx: { trackId: number; now: Date },
): Promise<{ detalle: EmuDocumentOutcome[]; estadistica: EmuStats[] }> {
  const detalle: EmuDocumentOutcome[] = [];
  for (const d of env.documents) {
    const findings = [...d.findings];
    const rut = d.rutEmisor;
    if (rut && d.tipoDte !== null && d.folio !== null) {
      const cafReadable = !findings.some((f) => f.codigo === 'CAF-3-516' || f.codigo === 'CAF-3-519');
      if (cafReadable && d.cafModulus && !(await emulatorStore.ownsCaf(tx, rut, d.tipoDte, d.folio, d.cafModulus))) {
        findings.push(finding('CAF-3-519', `el SII no otorgó este CAF a ${rut}`));
      }
      if (await emulatorStore.isAnnulled(tx, rut, d.tipoDte, d.folio)) findings.push(finding('DTE-3-601'));
      for (const ref of d.references) {
        const referenced = await emulatorStore.getDocument(tx, ref.rutOtr ?? rut, ref.tipoDte, ref.folio);
        // Another taxpayer's document may never have passed through this emulator: not judged.
        if (!referenced) {
          if (!ref.rutOtr) findings.push(finding('REF-3-750', `tipo ${ref.tipoDte} folio ${ref.folio}`));
        } else if (ref.codRef === '1' && NOTES.has(d.tipoDte)) {
          const f = annulmentFinding(d.montoTotal, referenced.monto_total, ref);
          if (f) findings.push(f);
        }
      }
    }
    if (DOCUMENT_TRIGGERS.reject.test(d.razonSocialReceptor)) findings.push(SANDBOX_CODES.reject);
    else if (DOCUMENT_TRIGGERS.objection.test(d.razonSocialReceptor)) findings.push(SANDBOX_CODES.objection);

    let estado = findings.some((f) => levelOf(f.codigo) >= 3) ? 'RCH' : findings.length > 0 ? 'RPR' : 'DOK';
    let errores = findings;
    if (estado !== 'RCH' && rut && d.tipoDte !== null && d.folio !== null) {
      const fresh = await emulatorStore.insertDocument(tx, {
        rut,
        tipoDte: d.tipoDte,
        folio: d.folio,
        digest: d.digest,
        trackId: ctx.trackId,
        estado,
        glosa: estado === 'DOK' ? 'DTE Aceptado' : DOCUMENT_DESCRIPCION.RPR,
        fechaEmision: d.fechaEmision,
        montoTotal: d.montoTotal,
        iva: d.iva,
        rutReceptor: d.rutReceptor,
        now: ctx.now,
      });
      if (!fresh) {
        const prior = (await emulatorStore.getDocument(tx, rut, d.tipoDte, d.folio))!;
        estado = 'RCH';
        errores = [
          isRepeat(prior, d) ? finding('DTE-3-100') : finding('DTE-3-101', `recibido antes en el envío ${prior.track_id}`),
          ...findings,
        ];
      }
    }
    const descripcion = estado === 'RCH' ? DOCUMENT_DESCRIPCION.RCH : estado === 'RPR' ? DOCUMENT_DESCRIPCION.RPR : 'DTE Aceptado';
    detalle.push({ tipo: d.tipoDte ?? 0, folio: d.folio ?? 0, estado, descripcion, errores });
  }
  const stats = new Map<number, EmuStats>();
  for (const o of detalle) {
    const s = stats.get(o.tipo) ?? { tipo: o.tipo, informados: 0, aceptados: 0, rechazados: 0, reparos: 0 };
    s.informados++;
    if (o.estado === 'RCH') s.rechazados++;
    else if (o.estado === 'RPR') s.reparos++;
    else s.aceptados++;
    stats.set(o.tipo, s);
  }
  return { detalle, estadistica: [...stats.values()].sort((a, b) => a.tipo - b.tipo) };
}
