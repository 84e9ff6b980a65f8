import { isValidDate, tryParseRut } from '../../../dte/index.ts';
import type { Messages } from '../i18n/index.ts';
import { queryValue } from '../http/form.ts';
import type { FormProblem } from '../ui/actions.ts';
import { DTE_STATUSES, TIPOS_DTE } from './issuing.ts';

/**
 * The documents search (issue 18): state, type, folio, receptor RUT and a range of issue dates,
 * read from the query string, so a search is a link (bookmarkable, kept by the pager and by the
 * CSV export). An unknown state or type is ignored like an unselected filter (the selects offer
 * only valid ones); a malformed folio, RUT or date is a problem shown beside its field, and no
 * list is read for it — showing every document instead would look like an answer.
 */
export interface DocumentFilters {
  status?: string | undefined;
  tipoDte?: string | undefined;
  folio?: string | undefined;
  receptorRut?: string | undefined;
  desde?: string | undefined;
  hasta?: string | undefined;
}

export interface DocumentQuery {
  status?: string | undefined;
  tipoDte?: number | undefined;
  folio?: number | undefined;
  receptorRut?: string | undefined;
  fechaDesde?: string | undefined;
  fechaHasta?: string | undefined;
}

export const FILTER_NAMES = ['status', 'tipoDte', 'folio', 'receptorRut', 'desde', 'hasta'] as const;

export function readDocumentFilters(
  query: unknown,
  t: Messages,
): { filters: DocumentFilters; query: DocumentQuery; problems: FormProblem[] } {
  const v = (name: string, max: number) => queryValue(query, name, max)?.trim() || undefined;
  const status = v('status', 32);
  const tipo = v('tipoDte', 4);
  const filters: DocumentFilters = {
    status: (DTE_STATUSES as readonly string[]).includes(status ?? '') ? status : undefined,
    tipoDte: (TIPOS_DTE as readonly number[]).includes(Number(tipo)) ? tipo : undefined,
    folio: v('folio', 20),
    receptorRut: v('receptorRut', 20),
    desde: v('desde', 10),
    hasta: v('hasta', 10),
  };
  const problems: FormProblem[] = [];
  const s = t.actions.search;
  if (filters.folio !== undefined && !/^\d{1,15}$/.test(filters.folio))
    problems.push({ param: 'folio', message: t.actions.validation.digits(s.folio) });
  if (filters.receptorRut !== undefined && !tryParseRut(filters.receptorRut))
    problems.push({ param: 'receptorRut', message: t.errorCodes.invalid_rut ?? s.receptorRut });
  for (const [name, label] of [
    ['desde', s.desde],
    ['hasta', s.hasta],
  ] as const) {
    const d = filters[name];
    if (d !== undefined && (!isValidDate(d) || d < '2000-01-01'))
      problems.push({ param: name, message: `${label}: ${t.errorCodes.invalid_date ?? ''}`.trim() });
  }
  return {
    filters,
    problems,
    query: {
      status: filters.status,
      tipoDte: filters.tipoDte ? Number(filters.tipoDte) : undefined,
      folio: filters.folio !== undefined ? Number(filters.folio) : undefined,
      receptorRut: filters.receptorRut,
      fechaDesde: filters.desde,
      fechaHasta: filters.hasta,
    },
  };
}

/** The filters as a query string (empty ones left out), for the pager and the CSV link. */
export function filterQuery(f: DocumentFilters): Record<string, string | undefined> {
  return Object.fromEntries(FILTER_NAMES.map((k) => [k, f[k]]));
}
