import type { AuditEvent } from '../../../modules/audit/index.ts';
import { CSV_BOM, csvText } from './documents-csv.ts';

/**
 * The audit log as CSV (docs/audit.md), written like the documents export
 * (documents-csv.ts: UTF-8 with BOM, `;`, CRLF, formula-injection safe text cells), with the same
 * columns whatever the filters or the page's language. `details` is its JSON, a text cell.
 */
export { CSV_BOM };

export const AUDIT_CSV_COLUMNS = [
  'id',
  'createdAt',
  'livemode',
  'actorType',
  'actorId',
  'actor',
  'action',
  'targetType',
  'targetId',
  'ip',
  'userAgent',
  'details',
] as const;

export const auditCsvHeader = (): string => AUDIT_CSV_COLUMNS.join(';') + '\r\n';

export function auditCsvRow(e: AuditEvent): string {
  return (
    [
      csvText(e.id),
      csvText(e.createdAt),
      csvText(String(e.livemode)),
      csvText(e.actor.type),
      csvText(e.actor.id),
      csvText(e.actor.label),
      csvText(e.action),
      csvText(e.target.type),
      csvText(e.target.id),
      csvText(e.ip),
      csvText(e.userAgent),
      csvText(JSON.stringify(e.details)),
    ].join(';') + '\r\n'
  );
}
