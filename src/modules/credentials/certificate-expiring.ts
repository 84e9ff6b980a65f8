import type { Db, Sql } from '../../db/types.ts';
import { daysBetween, formatRutDotted, siiDate, tryParseRut } from '../../dte/index.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { credentialsStore } from './credentials.store.ts';

/**
 * `certificate.expiring` (docs/webhooks.md "Events"): once per certificate, when it enters the
 * 30-day window before its expiry, never for one already expired. Two ways in:
 * - `notifyIfCertificateRowExpiring`, called by the certificate and activation services in the
 *   transaction that stores a certificate, so one uploaded with 10 days left is announced at once;
 * - `scanExpiringCertificates`, a periodic scan (credentials.jobs.ts), for certificates that cross
 *   into the window later.
 * "Once" is the primary key of certificate_expiry_notices, taken in the same transaction as the
 * event: two scanners (or a scan racing an upload) cannot both emit, and a rollback takes both.
 * Days are counted in Chile (the engine's `siiDate`), where fechaVencimiento is meant.
 */
export const EXPIRING_LEAD_DAYS = 30;

export interface ExpiringCertificate {
  accountId: string;
  tenantId: string;
  certificateId: string;
  rutCertificado: string;
  nombreTitular: string;
  /** YYYY-MM-DD */
  fechaVencimiento: string;
  /** The certificate's notAfter, when known: past it the certificate is expired whatever the date says. */
  notAfter?: Date | undefined;
}

/** Emits the event if the certificate is inside the window and was never announced. Returns whether it did. */
export async function notifyIfCertificateExpiring(tx: Sql, c: ExpiringCertificate, now: Date): Promise<boolean> {
  const daysRemaining = daysBetween(siiDate(now), c.fechaVencimiento);
  if (daysRemaining < 0 || daysRemaining > EXPIRING_LEAD_DAYS) return false;
  if (c.notAfter && c.notAfter.getTime() <= now.getTime()) return false;
  if (!(await credentialsStore.claimExpiryNotice(tx, c.certificateId, c.accountId, now))) return false;
  await emitEvent(tx, {
    accountId: c.accountId,
    type: 'certificate.expiring',
    data: {
      tenantId: c.tenantId,
      certificateId: c.certificateId,
      // The dotted form, as the credentials API shows it, whichever form the row stores.
      rutCertificado: tryParseRut(c.rutCertificado) ? formatRutDotted(c.rutCertificado) : c.rutCertificado,
      nombreTitular: c.nombreTitular,
      fechaVencimiento: c.fechaVencimiento,
      daysRemaining,
    },
    now,
  });
  return true;
}

/** The same, from a row of tenant_certificates (what the services have in hand after an insert). */
export const notifyIfCertificateRowExpiring = (
  tx: Sql,
  row: {
    id: string;
    account_id: string;
    tenant_id: string;
    rut_certificado: string;
    nombre_titular: string;
    fecha_vencimiento: string;
    not_after: Date;
  },
  now: Date,
): Promise<boolean> =>
  notifyIfCertificateExpiring(
    tx,
    {
      accountId: row.account_id,
      tenantId: row.tenant_id,
      certificateId: row.id,
      rutCertificado: row.rut_certificado,
      nombreTitular: row.nombre_titular,
      fechaVencimiento: row.fecha_vencimiento,
      notAfter: row.not_after,
    },
    now,
  );

/** Finds certificates inside the window that were never announced, and announces them, a batch per transaction. */
export async function scanExpiringCertificates(db: Db, clock: Clock, opts: { batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 200;
  let total = 0;
  for (;;) {
    const now = clock.now();
    const emitted = await db.transaction(async (tx) => {
      const rows = await credentialsStore.unannouncedExpiring(tx, { today: siiDate(now), leadDays: EXPIRING_LEAD_DAYS, now, limit: batch });
      let n = 0;
      for (const r of rows) if (await notifyIfCertificateRowExpiring(tx, r, now)) n++;
      return { n, more: rows.length === batch };
    });
    total += emitted.n;
    if (!emitted.more) return total;
  }
}
