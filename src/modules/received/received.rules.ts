import { accionesFor, typesWhere, type Accion } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { AccionSummary, ReceivedDteRow, ReceivedStatus } from './received.store.ts';

/**
 * The rules of the SII's registro de aceptación o reclamo (docs/…aceptacion-reclamo-dte-v1.2,
 * "accionDoc") as this service applies them before asking the SII (docs/received.md, "Accepting or
 * claiming"). Only answers the SII did not refuse count.
 */
export const ACCIONES = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'] as const satisfies readonly Accion[];
export type { Accion };

const CLAIMS: readonly string[] = ['RCD', 'RFP', 'RFT'];

const live = <A extends Pick<AccionSummary, 'accion' | 'state'>>(acciones: readonly A[]): A[] =>
  acciones.filter((a) => a.state !== 'refused');

/** The status the answers that count lead to. */
export function statusOf(acciones: readonly Pick<AccionSummary, 'accion' | 'state'>[]): ReceivedStatus {
  const counted = live(acciones);
  if (counted.some((a) => CLAIMS.includes(a.accion))) return 'claimed';
  return counted.length > 0 ? 'accepted' : 'received';
}

/**
 * The rules for `accion` on `row` at `now`: the answer already recorded (asked again), or nothing
 * (go ahead); throws the refusal. The type and the recorded answer come before the deadline, so a
 * repeat is answered as recorded even after it.
 */
export function checkAcceptance<A extends Pick<AccionSummary, 'accion' | 'state'>>(
  row: Pick<ReceivedDteRow, 'tipo_dte' | 'acceptance_deadline' | 'status'> & { acciones: readonly A[] },
  accion: Accion,
  now: Date,
): A | undefined {
  if (!accionesFor(row.tipo_dte).includes(accion))
    throw errors.unprocessable(
      'acceptance_not_applicable',
      `Only facturas (${typesWhere((t) => t.acciones.length > 0).join(', ')}) are accepted or claimed under Ley 19.983; this is a type ${row.tipo_dte} document.`,
    );
  const counted = live(row.acciones);
  const repeat = counted.find((a) => a.accion === accion);
  if (repeat) return repeat;
  if (now.getTime() > row.acceptance_deadline.getTime())
    throw new AppError(
      'conflict',
      'acceptance_window_closed',
      `The eight days to accept or claim this document ended at ${row.acceptance_deadline.toISOString()} (Ley 19.983).`,
      { details: { acceptanceDeadline: row.acceptance_deadline.toISOString() } },
    );
  const claim = CLAIMS.includes(accion);
  const previous = counted.map((a) => a.accion).filter((a) => CLAIMS.includes(a) !== claim);
  if (previous.length > 0)
    throw errors.conflict(
      claim ? 'document_already_accepted' : 'document_already_claimed',
      claim
        ? `This document was already accepted (${previous.join(', ')}): it cannot be claimed.`
        : `This document was already claimed (${previous.join(', ')}): it cannot be accepted.`,
      { details: { acciones: counted.map((a) => a.accion), status: row.status } },
    );
  return undefined;
}
