import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { describeEachDb } from '../../support/db.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { pdfText } from '../../support/pdf.ts';
import { dumpTables, findings } from '../../support/secret-scan.ts';

/**
 * Outbound exchange through a real SMTP server in the test (smtp-server, read back with
 * mailparser): documents issued and accepted through the emulator are e-mailed to their receptors.
 * The XML attachment passes the reference checker, the PDF opens; a transient refusal (451) is
 * retried and delivered, a permanent one (550) is recorded as failed after one attempt; neither the
 * addresses nor the SMTP password appear in any log line.
 */
const SMTP_USER = 'relay-user';
const SMTP_PASSWORD = 'smtp-Secret-Passw0rd';

interface Received {
  from: string | undefined;
  to: string[];
  raw: Buffer;
}

interface DeliveryJson {
  id: string;
  status: string;
  to: string | null;
  attempts: number;
  transport: string | null;
  messageId: string | null;
  smtpResponse: string | null;
  lastError: { code: string; message: string } | null;
}

function startSmtpServer() {
  const received: Received[] = [];
  const refusals = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, cb) {
      const a = address.address;
      // A permanent refusal that quotes the address, as real servers do.
      if (a.startsWith('permanent')) return cb(Object.assign(new Error(`5.1.1 <${a}>: Recipient address rejected`), { responseCode: 550 }));
      // A server that is always busy for this mailbox.
      if (a.startsWith('busy')) return cb(Object.assign(new Error('4.3.2 Service busy, try later'), { responseCode: 421 }));
      // Greylisting: the first try of each message is deferred.
      if (a.startsWith('transient') && (refusals.get(a) ?? 0) < 1) {
        refusals.set(a, (refusals.get(a) ?? 0) + 1);
        return cb(Object.assign(new Error(`4.7.1 <${a}>: Greylisted, try again later`), { responseCode: 451 }));
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        cb(null, `Queued as TEST${received.length}`);
      });
    },
  });
  return {
    received,
    server,
    listen: () =>
      new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeEachDb('outbound exchange through a real SMTP server', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let smtp: ReturnType<typeof startSmtpServer>;
  const ids: Record<string, string> = {};
  // Every console line of the process (the background work logs there), kept instead of printed.
  const logged: string[] = [];
  const CONSOLE = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = CONSOLE.map((m) => console[m]);

  const settled = async (dteId: string): Promise<DeliveryJson[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${dteId}/deliveries` });
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data as DeliveryJson[];
      if (data.length > 0 && data.every((d) => d.status !== 'pending')) return data;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${r.body}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };

  const messagesTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

  beforeAll(async () => {
    for (const m of CONSOLE) console[m] = (...args: unknown[]) => void logged.push(JSON.stringify(args));
    smtp = startSmtpServer();
    const port = await smtp.listen();
    t = await startIssuingApp(backend, {
      env: {
        SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
        SMTP_FROM: 'Facturación Emisor <dte@emisor.example.cl>',
        EXCHANGE_RETRY_SCHEDULE: '0,200ms,200ms',
      },
    });
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key, { email: 'contacto@emisor.example.cl' });
    await requestFolios(t, key, tenantId, 33, 5);
    for (const [name, correo] of [
      ['good', 'good@receptor.example.cl'],
      ['transient', 'transient@receptor.example.cl'],
      ['permanent', 'permanent@receptor.example.cl'],
      ['busy', 'busy@receptor.example.cl'],
    ] as const) {
      const body = dteBody(33);
      body.receptor = { ...(body.receptor as object), correo };
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: body });
      expect(r.statusCode, r.body).toBe(201);
      ids[name] = r.json().id;
    }
    const sent = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte/send`,
      payload: { dteIds: Object.values(ids) },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    for (const id of Object.values(ids)) expect((await waitFinal(t, key, id)).status).toBe('accepted');
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    CONSOLE.forEach((m, i) => (console[m] = originals[i]!));
  });

  it('e-mails the accepted factura: the EnvioDTE addressed to the receptor passes the checker, the PDF opens', async () => {
    const [d, ...more] = await settled(ids.good!);
    expect(more).toEqual([]);
    expect(d).toMatchObject({ status: 'sent', transport: 'smtp', attempts: 1, to: 'good@receptor.example.cl', lastError: null });
    expect(d!.smtpResponse).toMatch(/^250 .*Queued as TEST\d+/);
    const [m, ...again] = messagesTo('good@receptor.example.cl');
    expect(again).toEqual([]);
    expect(m!.from).toBe('dte@emisor.example.cl');

    const mail: ParsedMail = await simpleParser(m!.raw);
    expect(mail.messageId).toBe(d!.messageId);
    expect(d!.messageId).toBe(`<${d!.id}@emisor.example.cl>`);
    expect(mail.subject).toBe('Factura electrónica N° 1 de Servicios Ejemplo SpA');
    expect(mail.replyTo?.text).toBe('contacto@emisor.example.cl');
    expect(mail.text).toContain('aceptada por el SII');
    expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/xml', 'application/pdf']);

    const xml = mail.attachments[0]!;
    expect(xml.filename).toMatch(/^EnvioDTE_\d+-[\dK]_T33_F1\.xml$/);
    const text = xml.content.toString('latin1');
    expect(text).toContain('<RutReceptor>77777777-7</RutReceptor>');
    expect(text).toContain('<RUTRecep>77777777-7</RUTRecep>');
    const check = runCheckSiiXml([{ name: xml.filename!, bytes: xml.content }], {
      cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem,
    });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);

    const pdf = mail.attachments[1]!;
    expect(pdf.filename).toBe('DTE-T33-F1.pdf');
    const printed = pdfText(pdf.content, { raw: true });
    expect(printed).toContain('FACTURA ELECTRÓNICA');
    expect(printed).toContain('Nº 1');
  });

  it('retries a transient refusal (451) and delivers on the next attempt', async () => {
    const [d] = await settled(ids.transient!);
    expect(d).toMatchObject({ status: 'sent', transport: 'smtp', attempts: 2 });
    // The error of the failed attempt stays on record, without the address the server quoted.
    expect(d!.lastError).toMatchObject({ code: 'smtp_deferred' });
    expect(d!.lastError!.message).toContain('451');
    expect(d!.lastError!.message).toContain('[address]');
    expect(d!.lastError!.message).not.toContain('receptor.example.cl');
    expect(messagesTo('transient@receptor.example.cl')).toHaveLength(1);
  });

  it('records a permanent refusal (550) as failed after one attempt', async () => {
    const [d] = await settled(ids.permanent!);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, transport: null, messageId: null, lastError: { code: 'smtp_rejected' } });
    expect(d!.lastError!.message).toContain('550');
    expect(d!.lastError!.message).not.toContain('permanent@');
    expect(messagesTo('permanent@receptor.example.cl')).toHaveLength(0);
  });

  it('fails a delivery whose every attempt is deferred, after the schedule’s attempts', async () => {
    const [d] = await settled(ids.busy!);
    expect(d).toMatchObject({ status: 'failed', attempts: 3, messageId: null, lastError: { code: 'smtp_deferred' } });
    expect(messagesTo('busy@receptor.example.cl')).toHaveLength(0);
  });

  it('logs neither an address nor the SMTP password, and stores the password nowhere', async () => {
    expect(logged.some((l) => l.includes('exchange delivery'))).toBe(true);
    for (const secret of ['receptor.example.cl', 'emisor.example.cl', SMTP_PASSWORD]) {
      expect(logged.filter((l) => l.includes(secret))).toEqual([]);
    }
    const password = { password: Buffer.from(SMTP_PASSWORD) };
    expect(findings(await dumpTables(t.ctx.db), password, 'the main database')).toEqual([]);
    expect(findings(await dumpTables(t.sdb.db), password, 'the secrets database')).toEqual([]);
  });
});
