import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../../../src/db/migrate.ts';
import { MAIN_MIGRATIONS } from '../../../src/db/open.ts';
import type { Db } from '../../../src/db/types.ts';
import { typesWhere } from '../../../src/dte/index.ts';
import { AppError } from '../../../src/errors.ts';
import { manualClock } from '../../../src/lib/clock.ts';
import { createDteDeliveries } from '../../../src/modules/dte/index.ts';
import { createExchangeService, createMailboxTransport, DELIVERY_QUEUE, type MailDelivery } from '../../../src/modules/exchange/index.ts';
import { createReceivedDeliveries } from '../../../src/modules/received/index.ts';
import { describeEachDb, openTestDb, type TestDb } from '../../support/db.ts';

/**
 * The exchange module as a generic outbox (docs/exchange.md, docs/design.md §11), on a real
 * database: its migration from the per-document columns to subjects, the queue/send/record cycle
 * with a subject kind of a test's own, and the rules the dte and received modules now own (which
 * documents and answers are sent, and why one is skipped).
 */
const MIGRATION = '202612041200_exchange_subjects.sql';
const EXCHANGED = typesWhere((t) => t.exchanged)[0]!;
const NOT_EXCHANGED = typesWhere((t) => !t.exchanged)[0]!;

async function accountAndTenant(db: Db, now: Date): Promise<{ accountId: string; tenantId: string }> {
  const accountId = crypto.randomUUID();
  const tenantId = crypto.randomUUID();
  await db.query('insert into accounts (id, name, email, created_at, updated_at) values ($1, $2, $3, $4, $4)', [
    accountId,
    'Outbox test',
    `${accountId}@example.test`,
    now,
  ]);
  await db.query(
    `insert into tenants (id, account_id, rut_empresa, razon_social, giro, direccion, comuna, ciudad, numero_resolucion, fecha_resolucion,
       ambiente, status, api_key_verified_at, certificate_configured, created_at, updated_at)
     values ($1, $2, '76086428-5', 'X SpA', 'Software', 'Calle 1', 'Santiago', 'Santiago', 0, '2020-01-01', 'certificacion', 'active', $3, true, $3, $3)`,
    [tenantId, accountId, now],
  );
  return { accountId, tenantId };
}

describeEachDb('exchange outbox: the migration to subjects', (backend) => {
  let tdb: TestDb;
  let dir: string;

  beforeAll(async () => {
    // The migrations before this one, so the database holds exchange_deliveries of the old shape.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-migrations-'));
    for (const f of fs.readdirSync(MAIN_MIGRATIONS).filter((f) => f.endsWith('.sql') && f < MIGRATION))
      fs.copyFileSync(path.join(MAIN_MIGRATIONS, f), path.join(dir, f));
    tdb = await openTestDb(backend, { migrationsDir: dir });
  });
  afterAll(async () => {
    // An in-memory PGlite migrated past its folder is not handed back to the pool: closed instead.
    if (backend === 'pglite') await tdb.db.close();
    else await tdb.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('carries the rows of the old shape over to subjects, keeps one automatic delivery per document, drops the old columns', async () => {
    const db = tdb.db;
    const now = new Date('2026-12-01T10:00:00.000Z');
    const { accountId, tenantId } = await accountAndTenant(db, now);
    const [dteId, envioId, receivedId] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const ids = { accepted: crypto.randomUUID(), resend: crypto.randomUUID(), envio: crypto.randomUUID(), accion: crypto.randomUUID() };
    await db.transaction(async (tx) => {
      // The rows name documents and uploads this test does not build (dtes and received rows take
      // a whole issuing or reception): their foreign keys are not checked while these rows go in.
      await tx.query(`set local session_replication_role = replica`);
      const insert = (id: string, cols: Record<string, unknown>) => {
        const all = {
          id,
          account_id: accountId,
          tenant_id: tenantId,
          status: 'sent',
          recipient: 'x@example.cl',
          max_attempts: 3,
          attempts: 1,
          created_at: now,
          updated_at: now,
          ...cols,
        };
        const names = Object.keys(all);
        return tx.query(
          `insert into exchange_deliveries (${names.join(', ')}) values (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(all),
        );
      };
      await insert(ids.accepted, { kind: 'dte', dte_id: dteId, trigger: 'accepted' });
      await insert(ids.resend, { kind: 'dte', dte_id: dteId, trigger: 'resend', status: 'failed', last_error_code: 'smtp_rejected' });
      await insert(ids.envio, { kind: 'respuesta', received_envio_id: envioId, respuesta_tipo: 'RecepcionEnvio', trigger: 'recepcion' });
      await insert(ids.accion, {
        kind: 'respuesta',
        received_dte_id: receivedId,
        accion_n: 2,
        respuesta_tipo: 'EnvioRecibos',
        trigger: 'accion',
        status: 'skipped',
        skip_reason: 'supplier_email_missing',
        recipient: null,
      });
    });

    expect(await migrate(db, MAIN_MIGRATIONS)).toContain(MIGRATION);

    const rows = (
      await db.query<{
        id: string;
        subject_kind: string;
        subject_id: string;
        subject_detail: unknown;
        once_key: string | null;
        trigger: string;
        status: string;
        skip_reason: string | null;
        last_error_code: string | null;
      }>(
        `select id, subject_kind, subject_id, subject_detail, once_key, trigger, status, skip_reason, last_error_code
         from exchange_deliveries where account_id = $1`,
        [accountId],
      )
    ).rows;
    const byId = new Map(
      rows.map((r) => [
        r.id,
        { ...r, subject_detail: typeof r.subject_detail === 'string' ? JSON.parse(r.subject_detail) : r.subject_detail },
      ]),
    );
    expect(byId.get(ids.accepted)).toMatchObject({
      subject_kind: 'dte',
      subject_id: dteId,
      subject_detail: null,
      once_key: `dte:${dteId}:accepted`,
      trigger: 'accepted',
    });
    expect(byId.get(ids.resend)).toMatchObject({
      subject_kind: 'dte',
      subject_id: dteId,
      once_key: null,
      status: 'failed',
      last_error_code: 'smtp_rejected',
    });
    expect(byId.get(ids.envio)).toMatchObject({
      subject_kind: 'received_envio',
      subject_id: envioId,
      subject_detail: { tipo: 'RecepcionEnvio' },
    });
    expect(byId.get(ids.accion)).toMatchObject({
      subject_kind: 'received_dte',
      subject_id: receivedId,
      subject_detail: { tipo: 'EnvioRecibos', n: 2 },
      status: 'skipped',
      skip_reason: 'supplier_email_missing',
    });

    const cols = (
      await db.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_name = 'exchange_deliveries' and table_schema = current_schema()`,
      )
    ).rows.map((r) => r.column_name);
    for (const gone of ['kind', 'dte_id', 'received_envio_id', 'received_dte_id', 'accion_n', 'respuesta_tipo'])
      expect(cols).not.toContain(gone);

    // The document's automatic delivery is still the only one its once key allows.
    const again = await db.query(
      `insert into exchange_deliveries (id, account_id, tenant_id, subject_kind, subject_id, once_key, trigger, status, max_attempts, created_at, updated_at)
       values ($1, $2, $3, 'dte', $4, $5, 'accepted', 'pending', 3, $6, $6) on conflict do nothing`,
      [crypto.randomUUID(), accountId, tenantId, dteId, `dte:${dteId}:accepted`, now],
    );
    expect(again.rowCount).toBe(0);
  });
});

describeEachDb('exchange outbox: generic delivery, and the rules of the modules that own the subjects', (backend) => {
  let tdb: TestDb;
  let db: Db;
  const clock = manualClock('2026-12-04T12:00:00.000Z');
  let exchange: ReturnType<typeof createExchangeService>;
  let tenant: { account_id: string; id: string };
  const statuses: MailDelivery[] = [];
  /** What the documents read returns, by id (the dte module's read, a port here). */
  const docs = new Map<string, { id: string; tipoDte: number; status: string; receptor: { correo?: string | null } }>();

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    db = tdb.db;
    const { accountId, tenantId } = await accountAndTenant(db, clock.now());
    tenant = { account_id: accountId, id: tenantId };
    exchange = createExchangeService({
      db,
      clock,
      transport: createMailboxTransport({ db, clock }),
      from: 'DTE <dte@localhost>',
      retryScheduleMs: [0, 10],
    });
    exchange.registerSubject('test_note', {
      compose: async (d, a) =>
        d.detail?.skip
          ? { skip: String(d.detail.skip) }
          : {
              from: a.from,
              to: a.to,
              messageId: `<${a.deliveryId}@localhost>`,
              subject: `Nota ${String(d.detail?.n)}`,
              text: 'hola',
              attachments: [],
            },
      onStatus: (m) => {
        statuses.push(m);
      },
    });
  });
  afterAll(async () => {
    exchange.close();
    await tdb.close();
  });

  const jobsOf = async (deliveryId: string) =>
    (await db.query(`select 1 from jobs where queue = $1 and payload->>'deliveryId' = $2`, [DELIVERY_QUEUE, deliveryId])).rowCount;

  it('queues, sends and records a delivery of any subject, and tells its owner how it ended', async () => {
    const subject = { kind: 'test_note', id: crypto.randomUUID() };
    const { id, inserted } = await db.transaction((tx) =>
      exchange.enqueue(tx, {
        accountId: tenant.account_id,
        tenantId: tenant.id,
        subject,
        detail: { n: 7 },
        trigger: 'manual',
        to: ' a@b.cl ',
      }),
    );
    expect(inserted).toBe(true);
    expect(await jobsOf(id)).toBe(1);
    expect((await exchange.byId(tenant.account_id, id))!).toMatchObject({
      status: 'pending',
      to: 'a@b.cl',
      subject,
      detail: { n: 7 },
      trigger: 'manual',
    });
    await exchange.runDelivery({ accountId: tenant.account_id, deliveryId: id });
    const [m] = await exchange.ofSubject(tenant, subject);
    expect(m).toMatchObject({ id, status: 'sent', transport: 'mailbox', attempts: 1, messageId: `<${id}@localhost>` });
    expect(statuses.at(-1)).toMatchObject({ id, status: 'sent' });
    const mail = (await exchange.mailboxOfDeliveries(tenant.account_id, [id])).get(id)!;
    expect(mail).toMatchObject({ about: subject, subject: 'Nota 7', to: 'a@b.cl' });
    // Another account never finds it.
    expect(await exchange.byId(crypto.randomUUID(), id)).toBeUndefined();
    expect(await exchange.ofSubject({ account_id: crypto.randomUUID(), id: tenant.id }, subject)).toEqual([]);
  });

  it("records the composer's skip with its reason, and a once key writes a delivery once", async () => {
    const subject = { kind: 'test_note', id: crypto.randomUUID() };
    const write = () =>
      db.transaction((tx) =>
        exchange.enqueue(tx, {
          accountId: tenant.account_id,
          tenantId: tenant.id,
          subject,
          detail: { skip: 'nothing_left' },
          trigger: 'manual',
          to: 'a@b.cl',
          onceKey: `note:${subject.id}`,
        }),
      );
    const first = await write();
    expect((await write()).inserted).toBe(false);
    await exchange.runDelivery({ accountId: tenant.account_id, deliveryId: first.id });
    const list = await exchange.ofSubject(tenant, subject);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'skipped', skipReason: 'nothing_left' });
    expect(statuses.at(-1)).toMatchObject({ id: first.id, status: 'skipped' });
    // A subject kind nobody registered cannot be sent: the attempt fails and is retried.
    const stray = await db.transaction((tx) =>
      exchange.enqueue(tx, {
        accountId: tenant.account_id,
        tenantId: tenant.id,
        subject: { kind: 'nobody', id: subject.id },
        trigger: 'x',
        to: 'a@b.cl',
      }),
    );
    expect(await exchange.runDelivery({ accountId: tenant.account_id, deliveryId: stray.id })).toMatchObject({
      rescheduleInMs: expect.any(Number),
    });
    expect(await exchange.byId(tenant.account_id, stray.id)).toMatchObject({
      status: 'pending',
      lastError: { code: 'delivery_build_failed' },
    });
  });

  it('dte: an accepted document of an exchanged type gets one automatic delivery, skipped without a usable correo; others none', async () => {
    const dteDeliveries = createDteDeliveries({ db, outbox: exchange, documents: { get: async (_t, id) => docs.get(id)! } });
    const accepted = (tipoDte: number, correo: string | null) => {
      const dteId = crypto.randomUUID();
      docs.set(dteId, { id: dteId, tipoDte, status: 'accepted', receptor: { correo } });
      return dteId;
    };
    const onAccepted = (dteId: string) =>
      db.transaction((tx) =>
        dteDeliveries.onAccepted(tx, {
          accountId: tenant.account_id,
          tenantId: tenant.id,
          dteId,
          tipoDte: docs.get(dteId)!.tipoDte,
          receptor: docs.get(dteId)!.receptor,
        }),
      );

    const ok = accepted(EXCHANGED, 'dte@receptor.cl');
    await onAccepted(ok);
    await onAccepted(ok); // the acceptance recorded twice (a poll run again): still one
    const list = (await dteDeliveries.list(tenant, ok)).data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      kind: 'dte',
      dteId: ok,
      respuesta: null,
      trigger: 'accepted',
      status: 'pending',
      to: 'dte@receptor.cl',
    });
    expect(Object.keys(list[0]!)).toEqual([
      'id',
      'tenantId',
      'kind',
      'dteId',
      'respuesta',
      'trigger',
      'status',
      'skipReason',
      'to',
      'transport',
      'attempts',
      'maxAttempts',
      'lastError',
      'messageId',
      'smtpResponse',
      'nextAttemptAt',
      'sentAt',
      'createdAt',
      'updatedAt',
    ]);

    const none = accepted(EXCHANGED, null);
    await onAccepted(none);
    expect((await dteDeliveries.list(tenant, none)).data).toMatchObject([
      { status: 'skipped', skipReason: 'receptor_email_missing', to: null },
    ]);
    const bad = accepted(EXCHANGED, 'not-an-address');
    await onAccepted(bad);
    expect((await dteDeliveries.list(tenant, bad)).data).toMatchObject([{ status: 'skipped', skipReason: 'receptor_email_invalid' }]);
    const boleta = accepted(NOT_EXCHANGED, 'dte@receptor.cl');
    await onAccepted(boleta);
    expect((await dteDeliveries.list(tenant, boleta)).data).toEqual([]);
  });

  it('dte: a resend only of an accepted, exchanged document with an address', async () => {
    const dteDeliveries = createDteDeliveries({ db, outbox: exchange, documents: { get: async (_t, id) => docs.get(id)! } });
    const doc = (tipoDte: number, status: string, correo: string | null) => {
      const id = crypto.randomUUID();
      docs.set(id, { id, tipoDte, status, receptor: { correo } });
      return id;
    };
    const refused = async (id: string, body: { to?: string }) => {
      const e = await dteDeliveries.resend(tenant, id, body).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AppError);
      return (e as AppError).code;
    };
    expect(await refused(doc(NOT_EXCHANGED, 'accepted', 'a@b.cl'), {})).toBe('delivery_not_applicable');
    expect(await refused(doc(EXCHANGED, 'sent', 'a@b.cl'), {})).toBe('dte_not_accepted');
    expect(await refused(doc(EXCHANGED, 'accepted', null), {})).toBe('receptor_email_missing');
    expect(await refused(doc(EXCHANGED, 'accepted', null), { to: 'nope' })).toBe('invalid_email');
    const id = doc(EXCHANGED, 'accepted_with_objections', null);
    const d = await dteDeliveries.resend(tenant, id, { to: 'otro@receptor.cl' });
    expect(d).toMatchObject({ kind: 'dte', dteId: id, trigger: 'resend', status: 'pending', to: 'otro@receptor.cl' });
    expect(await jobsOf(d.id)).toBe(1);
    expect(await dteDeliveries.byId(tenant.account_id, d.id)).toEqual(d);
  });

  it('received: each signed answer gets its delivery to the supplier, or a skipped one, listed under its upload or document', async () => {
    const envioId = crypto.randomUUID();
    const receivedId = crypto.randomUUID();
    const received = createReceivedDeliveries({
      outbox: exchange,
      received: () => ({ envio: async (_t, id) => ({ id }), get: async (_t, id) => ({ id }) }),
    });
    const a = await db.transaction((tx) =>
      received.onRespuesta(tx, {
        accountId: tenant.account_id,
        tenantId: tenant.id,
        answer: { receivedEnvioId: envioId },
        to: 'prov@ee.cl',
      }),
    );
    await db.transaction((tx) =>
      received.onRespuesta(tx, {
        accountId: tenant.account_id,
        tenantId: tenant.id,
        answer: { receivedDteId: receivedId, n: 3, tipo: 'EnvioRecibos' },
        to: null,
      }),
    );
    expect((await received.ofEnvio(tenant, envioId)).data).toMatchObject([
      {
        id: a,
        kind: 'respuesta',
        dteId: null,
        respuesta: { tipo: 'RecepcionEnvio', receivedEnvioId: envioId, receivedDteId: null, n: null },
        trigger: 'recepcion',
        status: 'pending',
      },
    ]);
    expect((await received.ofDocument(tenant, receivedId)).data).toMatchObject([
      {
        kind: 'respuesta',
        respuesta: { tipo: 'EnvioRecibos', receivedEnvioId: null, receivedDteId: receivedId, n: 3 },
        trigger: 'accion',
        status: 'skipped',
        skipReason: 'supplier_email_missing',
      },
    ]);
  });
});
