import type { Periodic } from '../../worker.ts';
import type { AuditService } from './audit.service.ts';

/** The audit module's background work, collected by src/worker.ts. */
export function auditPeriodics(audit: Pick<AuditService, 'sweep'>, retentionDays: number): Periodic[] {
  // Events older than AUDIT_RETENTION_DAYS (docs/audit.md "Retention"): hourly, in small batches.
  return [{ name: 'audit.retention', everyMs: 3_600_000, run: async () => void (await audit.sweep(retentionDays)) }];
}
