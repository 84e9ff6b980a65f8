import { ProviderError, rateLimitWaitMs, type DocumentState, type UploadStatus } from '../../provider/index.ts';
import type { DteRow, DteStatus } from './dte.store.ts';

/**
 * Reading the SII's verdict on an envelope with as few provider calls as its answers allow
 * (docs/dte.md, "How a verdict is read"). Pure apart from `ask` (one `consulta/dte`).
 *
 * An envelope rejected whole (RSC, RFR, RCT) rejects every document. A processed one (EPR) is read
 * by its counts per type: a type with no rejections and no reparos is accepted whole; rejected
 * whole, rejected whole; reparos on every document, accepted with objections whole. Boletas list
 * their reparos and rejections (`detalles`); the rest are accepted. Only an EnvioDTE type with some
 * rejections or reparos has its documents asked about one by one: DOK is accepted; FAU ("not
 * received") is a rejection only once the FAU documents are exactly the type's rejections not yet
 * accounted for (until then the SII may not have registered every accepted one); DNK and the rest
 * stay undecided, asked again at the next poll.
 */
interface Outcome {
  status: DteStatus;
  estado: string;
  glosa: string;
}

export interface Verdicts {
  decided: Map<string, Outcome>;
  /** Documents still in `sent` that got no verdict this time (asked again at the next poll). */
  undecided: number;
  /** Set when documents are left to ask about: when to ask again (0 = at once, the run's budget is spent). */
  retryInMs?: number;
}

/** Single-document questions per poll run: a minute of SimpleAPI's budget (40/min); the rest waits for the next run. */
export const MAX_DOCUMENT_QUERIES_PER_RUN = 40;

/** An EnvioDTE's rejection as the SII reports it: counts only; the reasons reach the company in the SII's validation e-mail. */
const rejectedGlosa = (s: { tipoDte: number; informados: number; rechazados: number }) =>
  `DTE Rechazado por el SII (${s.rechazados} de ${s.informados} documentos tipo ${s.tipoDte} del envío); ` +
  'el SII informa el motivo en su correo de validación';

export async function judgeEnvelope(
  st: UploadStatus,
  rows: readonly DteRow[],
  ask: (row: DteRow) => Promise<DocumentState>,
  /**
   * Documents an earlier, failed upload may have delivered: the SII counts them again as rejected
   * ("DTE Repetido", DTE-3-100) though it accepted them the first time, so counts alone never
   * reject them — they are asked about (DOK is accepted). Called only when a type has rejections.
   */
  sentBefore: () => Promise<Set<string>> = async () => new Set(),
): Promise<Verdicts> {
  const decided = new Map<string, Outcome>();
  const open = rows.filter((r) => r.status === 'sent');
  if (st.estado !== 'EPR') {
    for (const r of open) decided.set(r.id, { status: 'rejected', estado: st.estado, glosa: st.glosa });
    return { decided, undecided: 0 };
  }
  const listed = new Map(st.documents.map((d) => [`${d.tipoDte}:${d.folio}`, d]));
  const repeated = st.estadistica.some((x) => x.rechazados > 0) ? await sentBefore() : new Set<string>();
  const toAsk: DteRow[] = [];
  for (const r of open) {
    const d = listed.get(`${r.tipo_dte}:${Number(r.folio)}`);
    const s = st.estadistica.find((x) => x.tipoDte === r.tipo_dte);
    if (repeated.has(r.id) && (d?.status === 'rejected' || (!d && !st.documentsListed))) toAsk.push(r);
    else if (d) decided.set(r.id, { status: d.status, estado: d.estado, glosa: d.glosa });
    else if (st.documentsListed || (s && s.rechazados === 0 && s.reparos === 0)) {
      decided.set(r.id, { status: 'accepted', estado: 'DOK', glosa: 'DTE Aceptado' });
    } else if (s && s.informados > 0 && s.rechazados === s.informados) {
      decided.set(r.id, { status: 'rejected', estado: 'RCH', glosa: rejectedGlosa(s) });
    } else if (s && s.informados > 0 && s.reparos === s.informados) {
      decided.set(r.id, { status: 'accepted_with_objections', estado: 'RPR', glosa: 'DTE Aceptado con Reparos' });
    } else toAsk.push(r);
  }

  const answers = new Map<string, DocumentState>();
  let retryInMs: number | undefined;
  for (const r of toAsk.slice(0, MAX_DOCUMENT_QUERIES_PER_RUN)) {
    try {
      answers.set(r.id, await ask(r));
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      // Asked again at the next poll; a rate limit says when.
      retryInMs = rateLimitWaitMs(e);
      break;
    }
  }
  if (toAsk.length > answers.size && retryInMs === undefined && answers.size === MAX_DOCUMENT_QUERIES_PER_RUN) retryInMs = 0;

  // By type of the documents asked about: a type the counts leave out still takes its DOK answers.
  for (const tipo of new Set(toAsk.map((r) => r.tipo_dte))) {
    const s = st.estadistica.find((x) => x.tipoDte === tipo);
    const ofType = toAsk.filter((r) => r.tipo_dte === tipo);
    const asked = ofType.filter((r) => answers.has(r.id));
    if (asked.length === 0) continue;
    // Every accepted document has reparos when the reparos are all that is not rejected.
    const allRepaired = !!s && s.reparos > 0 && s.reparos === s.informados - s.rechazados;
    for (const r of asked) {
      const a = answers.get(r.id)!;
      if (a.estado === 'DOK')
        decided.set(
          r.id,
          allRepaired ? { status: 'accepted_with_objections', estado: 'RPR', glosa: a.glosa } : { status: 'accepted', ...a },
        );
    }
    if (!s) continue; // FAU is a rejection only against the type's count of rejections
    // Rejections accounted for already: earlier polls, and this one's by the counts or the list.
    const alreadyRejected = rows.filter(
      (r) => r.tipo_dte === tipo && (r.status === 'rejected' || (!asked.includes(r) && decided.get(r.id)?.status === 'rejected')),
    ).length;
    // A repeated document the SII holds (DOK) is one of the counted rejections: "DTE Repetido".
    const repeats = asked.filter((r) => repeated.has(r.id) && answers.get(r.id)!.estado === 'DOK').length;
    const fau = asked.filter((r) => answers.get(r.id)!.estado === 'FAU');
    if (asked.length === ofType.length && fau.length === s.rechazados - alreadyRejected - repeats) {
      for (const r of fau) decided.set(r.id, { status: 'rejected', estado: 'RCH', glosa: rejectedGlosa(s) });
    }
  }
  return { decided, undecided: open.length - decided.size, ...(retryInMs !== undefined ? { retryInMs } : {}) };
}
