import type { Db, Sql } from '../../db/types.ts';
import { formatRutDotted, tryParseRut } from '../../dte/rut.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';

/**
 * `certificate.expiring` (contract §6 and §8, decisions §8): once per certificate, when it enters
 * the 30-day window before its expiry, never for one already expired. Two ways in:
 * - `notifyIfCertificateExpiring`, called by the credentials module in its upload transaction, so
 *   a certificate uploaded with 10 days left is announced at once;
 * - `scanExpiringCertificates`, a periodic scan, for certificates that cross into the window later.
 * "Once" is the primary key of certificate_expiry_notices, taken in the same transaction as the
 * event: two scanners (or a scan racing an upload) cannot both emit, and a rollback takes both.
 */
export const EXPIRING_LEAD_DAYS = 30;

/** Today's date in Chile, where fechaVencimiento is meant. */
export const chileToday = (now: Date): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);

export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

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
  const daysRemaining = daysBetween(chileToday(now), c.fechaVencimiento);
  if (daysRemaining < 0 || daysRemaining > EXPIRING_LEAD_DAYS) return false;
  if (c.notAfter && c.notAfter.getTime() <= now.getTime()) return false;
  const taken = await tx.query(
    'insert into certificate_expiry_notices (certificate_id, account_id, notified_at) values ($1, $2, $3) on conflict do nothing',
    [c.certificateId, c.accountId, now],
  );
  if (taken.rowCount === 0) return false;
  await emitEvent(tx, {
    accountId: c.accountId,
    type: 'certificate.expiring',
    data: {
      tenantId: c.tenantId,
      certificateId: c.certificateId,
      // The dotted form, as the credentials API shows it, whichever form the caller stores.
      rutCertificado: tryParseRut(c.rutCertificado) ? formatRutDotted(c.rutCertificado) : c.rutCertificado,
      nombreTitular: c.nombreTitular,
      fechaVencimiento: c.fechaVencimiento,
      daysRemaining,
    },
    now,
  });
  return true;
}

/** The same, from a row of tenant_certificates (what the credentials module has in hand after an insert). */
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

/** Finds certificates inside the window that were never announced, and announces them. */
export async function scanExpiringCertificates(db: Db, clock: Clock, opts: { batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 200;
  let total = 0;
  for (;;) {
    const now = clock.now();
    const today = chileToday(now);
    const emitted = await db.transaction(async (tx) => {
      const rows = (
        await tx.query<{
          id: string;
          account_id: string;
          tenant_id: string;
          rut_certificado: string;
          nombre_titular: string;
          fecha: string;
          not_after: Date;
        }>(
          `select c.id, c.account_id, c.tenant_id, c.rut_certificado, c.nombre_titular,
                  to_char(c.fecha_vencimiento, 'YYYY-MM-DD') as fecha, c.not_after
           from tenant_certificates c
           where c.fecha_vencimiento between $1::date and $1::date + $2::int and c.not_after > $3
             and not exists (select 1 from certificate_expiry_notices n where n.certificate_id = c.id)
           order by c.fecha_vencimiento, c.id limit $4`,
          [today, EXPIRING_LEAD_DAYS, now, batch],
        )
      ).rows;
      let n = 0;
      for (const r of rows) {
        const did = await notifyIfCertificateExpiring(
          tx,
          {
            accountId: r.account_id,
            tenantId: r.tenant_id,
            certificateId: r.id,
            rutCertificado: r.rut_certificado,
            nombreTitular: r.nombre_titular,
            fechaVencimiento: r.fecha,
            notAfter: r.not_after,
          },
          now,
        );
        if (did) n++;
      }
      return { n, more: rows.length === batch };
    });
    total += emitted.n;
    if (!emitted.more) return total;
  }
}
