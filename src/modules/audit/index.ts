/**
 * The audit log (issue 29; docs/audit.md): who changed what, when and from where, never a secret.
 * Owns the `audit_events` table. Other modules receive an `AuditRecorder` and record inside the
 * transaction of their change; routes build the `AuditActor` from the request.
 */
export { createAuditService, auditFilter, toAuditEvent } from './audit.service.ts';
export type { AuditEvent, AuditQuery, AuditService } from './audit.service.ts';
export { SYSTEM_ACTOR } from './audit.types.ts';
export type { AuditActor, AuditChange, AuditRecorder, RecordAuditIn } from './audit.types.ts';
export { cleanDetails } from './audit.details.ts';
export { auditPeriodics } from './audit.jobs.ts';
export { default as auditRoutes } from './audit.routes.ts';
