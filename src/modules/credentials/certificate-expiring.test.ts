import crypto from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { manualClock } from '../../lib/clock.ts';
import { notifyIfCertificateExpiring, scanExpiringCertificates } from './certificate-expiring.ts';

describeEachDb('certificate.expiring', (backend) => {
  let h: TestDb;
  let clock: ReturnType<typeof manualClock>;
  let acct: string;
  let tenant: string;

  beforeEach(async () => {
    clock = manualClock('2026-11-21T15:00:00.000Z'); // 12:00 in Santiago
    h = await openTestDb(backend);
    acct = crypto.randomUUID();
    await h.db.query('insert into accounts (id, name, email, created_at, updated_at) values ($1, $2, $3, $4, $4)', [
      acct,
      'Expiry test',
      `${acct}@example.com`,
      clock.now(),
    ]);
    tenant = crypto.randomUUID();
    await h.db.query(
      `insert into tenants (id, account_id, rut_empresa, razon_social, giro, direccion, comuna, ciudad, numero_resolucion, fecha_resolucion, created_at, updated_at)
       values ($1, $2, '76.192.083-9', 'X SpA', 'Software', 'Calle 1', 'Santiago', 'Santiago', 0, '2020-01-01', $3, $3)`,
      [tenant, acct, clock.now()],
    );
  });
  afterEach(() => h.close());

  /** A certificate row as the credentials module stores it (only the columns the scan reads matter). */
  const certificate = async (fecha: string, notAfter = `${fecha}T23:59:59Z`) => {
    const id = crypto.randomUUID();
    await h.db.query(
      `insert into tenant_certificates (id, account_id, tenant_id, rut_certificado, nombre_titular, fecha_vencimiento, es_principal,
         subject, issuer, serial_number, fingerprint_sha256, not_before, not_after, certificate_der, pfx_ciphertext, password_ref, created_at, updated_at)
       values ($1, $2, $3, '12.345.678-5', 'María Pérez Soto', $4, false, 'CN=x', 'CN=ca', '01', $5, '2025-01-01', $6, '\\x00', '\\x00', 'ref', $7, $7)`,
      [id, acct, tenant, fecha, crypto.randomBytes(16).toString('hex'), notAfter, clock.now()],
    );
    return id;
  };
  const events = async () =>
    (
      await h.db.query<{ payload: string }>(
        `select payload from outbox_events where event_type = 'certificate.expiring' order by created_at`,
      )
    ).rows.map((r) => JSON.parse(r.payload) as { event: string; data: Record<string, unknown> });

  it('counts days in Chile, not UTC', async () => {
    await certificate('2026-12-21');
    clock.set('2026-11-21T02:00:00.000Z'); // 23:00 on the 20th in Santiago: 31 days left, outside the window
    expect(await scanExpiringCertificates(h.db, clock)).toBe(0);
    clock.set('2026-11-21T04:00:00.000Z'); // 01:00 on the 21st in Santiago: 30 days left
    expect(await scanExpiringCertificates(h.db, clock)).toBe(1);
    expect((await events()).map((e) => e.data.daysRemaining)).toEqual([30]);
  });

  it('announces a certificate once, when it enters the 30-day window', async () => {
    const id = await certificate('2026-12-31'); // 40 days away
    expect(await scanExpiringCertificates(h.db, clock)).toBe(0);
    clock.set('2026-12-01T15:00:00.000Z'); // exactly 30 days before
    expect(await scanExpiringCertificates(h.db, clock)).toBe(1);
    expect(await events()).toEqual([
      {
        event: 'certificate.expiring',
        timestamp: '2026-12-01T15:00:00.000Z',
        livemode: true,
        data: {
          tenantId: tenant,
          certificateId: id,
          rutCertificado: '12.345.678-5',
          nombreTitular: 'María Pérez Soto',
          fechaVencimiento: '2026-12-31',
          daysRemaining: 30,
        },
      },
    ]);
    clock.advance(86_400_000);
    expect(await scanExpiringCertificates(h.db, clock)).toBe(0);
    expect(await events()).toHaveLength(1);
  });

  it('never announces an expired certificate, by date or by notAfter', async () => {
    await certificate('2026-11-20'); // yesterday
    await certificate('2026-11-21', '2026-11-21T10:00:00Z'); // today, but notAfter already passed
    expect(await scanExpiringCertificates(h.db, clock)).toBe(0);
    expect(await events()).toEqual([]);
  });

  it('announces at upload (the credentials module calls this in its transaction) and the scan then skips it', async () => {
    const id = await certificate('2026-12-01');
    const c = {
      accountId: acct,
      tenantId: tenant,
      certificateId: id,
      rutCertificado: '12.345.678-5',
      nombreTitular: 'María Pérez Soto',
      fechaVencimiento: '2026-12-01',
      notAfter: new Date('2026-12-01T23:59:59Z'),
    };
    expect(await h.db.transaction((tx) => notifyIfCertificateExpiring(tx, c, clock.now()))).toBe(true);
    expect(await h.db.transaction((tx) => notifyIfCertificateExpiring(tx, c, clock.now()))).toBe(false);
    expect(await scanExpiringCertificates(h.db, clock)).toBe(0);
    expect((await events()).map((e) => e.data.daysRemaining)).toEqual([10]);
    // A rolled-back upload leaves neither the marker nor the event.
    const other = { ...c, certificateId: await certificate('2026-12-02') };
    await h.db
      .transaction(async (tx) => {
        await notifyIfCertificateExpiring(tx, other, clock.now());
        throw new Error('upload failed');
      })
      .catch(() => {});
    expect(await events()).toHaveLength(1);
    expect(await scanExpiringCertificates(h.db, clock)).toBe(1);
  });

  it('announces once even when scans race', async () => {
    for (let i = 0; i < 5; i++) await certificate('2026-12-10');
    const counts = await Promise.all([1, 2, 3, 4].map(() => scanExpiringCertificates(h.db, clock)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    expect(await events()).toHaveLength(5);
  });
});
