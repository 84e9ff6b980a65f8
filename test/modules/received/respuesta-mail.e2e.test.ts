import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatRutDotted } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { checkRespuesta } from '../../support/dte/check-respuesta.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { supplierEnvelope, uploadReceived } from '../../support/received.ts';
import { flatXml } from '../../support/dte/lines.ts';

/**
 * The intercambio end to end through a real SMTP server (smtp-server, read back with mailparser):
 * a factura issued by tenant A (account 1) and accepted by the emulator is received by tenant B
 * (account 2); B's RespuestaEnvioDTE arrives at A's exchange address (the DTE's CorreoEmisor) with
 * its XML valid (xmllint against the SII's schema, xmlsec1 on its signature); B accepts (ACD,
 * registered at the emulator's SII) and the ResultadoDTE arrives; B acknowledges receipt (ERM) and
 * the EnvioRecibos arrives. The first attempt is greylisted (451) and retried. A supplier without
 * CorreoEmisor gets a skipped delivery. No address is in any log line.
 */
const A_MAIL = 'intercambio@proveedor-a.example.cl';

interface Mail {
  to: string[];
  raw: Buffer;
}

function startSmtpServer() {
  const received: Mail[] = [];
  let greylisted = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Greylisting: the very first message is deferred (quoting the address, as real servers do).
    onRcptTo(address, _session, cb) {
      if (!greylisted) {
        greylisted = true;
        return cb(Object.assign(new Error(`4.7.1 <${address.address}>: Greylisted, try again later`), { responseCode: 451 }));
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks) });
        cb(null, `Queued as RESP${received.length}`);
      });
    },
  });
  return {
    received,
    listen: () =>
      new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface DeliveryJson {
  id: string;
  status: string;
  skipReason: string | null;
  to: string | null;
  transport: string | null;
  messageId: string | null;
  smtpResponse: string | null;
  attempts: number;
  lastError: { code: string; message: string } | null;
  respuesta: { tipo: string; n: number | null } | null;
}

describeEachDb('intercambio: the receptor’s signed answers reach the supplier through a real SMTP server', (backend) => {
  let t: IssuingApp;
  let smtp: ReturnType<typeof startSmtpServer>;
  let a: { accountId: string; key: string };
  let b: { accountId: string; key: string };
  let tenantA: string;
  let tenantB: string;
  let rutA: string;
  let rutB: string;
  const logged: string[] = [];
  const CONSOLE = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = CONSOLE.map((m) => console[m]);

  const settled = async (url: string, count: number): Promise<DeliveryJson[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await t.call(b.key, { method: 'GET', url });
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data as DeliveryJson[];
      if (data.length >= count && data.every((d) => d.status !== 'pending')) return data;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${r.body}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };

  /** A issues a factura to B (with or without CorreoEmisor), the SII accepts it, B receives it. */
  const aSendsToB = async (correo: string | null) => {
    const body = dteBody(
      33,
      { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rutB) }, ...(correo ? { emisor: { correo } } : {}) },
      t.clock.now(),
    );
    const c = await t.call(a.key, { method: 'POST', url: `/api/v1/tenants/${tenantA}/dte`, payload: body });
    expect(c.statusCode, c.body).toBe(201);
    const s = await t.call(a.key, { method: 'POST', url: `/api/v1/tenants/${tenantA}/dte/send`, payload: { dteIds: [c.json().id] } });
    expect(s.statusCode, s.body).toBe(202);
    expect((await waitFinal(t, a.key, c.json().id)).status).toBe('accepted');
    const xml = (await t.call(a.key, { method: 'GET', url: `/api/v1/tenants/${tenantA}/dte/${c.json().id}/xml` })).rawPayload;
    const r = await uploadReceived(t, b.key, tenantB, supplierEnvelope(t, { dtes: [xml], rutEmisor: rutA, rutReceptor: rutB }));
    expect(r.statusCode, r.body).toBe(201);
    return {
      folio: c.json().folio as number,
      envioId: r.json().envio.id as string,
      receivedId: r.json().envio.documents[0].receivedDteId as string,
    };
  };

  /** The one message delivery `d` put on the wire, parsed, with its XML attachment checked. */
  const wireMessage = async (d: DeliveryJson): Promise<{ mail: ParsedMail; xml: Buffer }> => {
    const ours = [];
    for (const m of smtp.received) {
      const parsed = await simpleParser(m.raw);
      if (parsed.messageId === d.messageId) ours.push({ m, parsed });
    }
    expect(ours).toHaveLength(1);
    expect(ours[0]!.m.to).toEqual([A_MAIL]);
    const mail = ours[0]!.parsed;
    expect(mail.attachments).toHaveLength(1);
    const xml = mail.attachments[0]!.content;
    const check = checkRespuesta(xml);
    expect(check.ok, check.output).toBe(true);
    return { mail, xml };
  };

  beforeAll(async () => {
    for (const m of CONSOLE) console[m] = (...args: unknown[]) => void logged.push(JSON.stringify(args));
    smtp = startSmtpServer();
    const port = await smtp.listen();
    t = await startIssuingApp(backend, {
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'DTE <dte@servicio.example.cl>', EXCHANGE_RETRY_SCHEDULE: '0,200ms,200ms' },
    });
    a = await t.account('Proveedor A');
    b = await t.account('Comprador B');
    tenantA = await readyTenant(t, a.key);
    tenantB = await readyTenant(t, b.key);
    const rutOf = async (key: string, id: string) =>
      ((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');
    rutA = await rutOf(a.key, tenantA);
    rutB = await rutOf(b.key, tenantB);
    await requestFolios(t, a.key, tenantA, 33, 5);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    CONSOLE.forEach((m, i) => (console[m] = originals[i]!));
  });

  it('RespuestaEnvioDTE, then ResultadoDTE (ACD), then EnvioRecibos (ERM) arrive at A’s exchange address', async () => {
    const doc = await aSendsToB(A_MAIL);

    const [recep] = await settled(`/api/v1/tenants/${tenantB}/received/envios/${doc.envioId}/deliveries`, 1);
    expect(recep).toMatchObject({ status: 'sent', transport: 'smtp', to: A_MAIL, respuesta: { tipo: 'RecepcionEnvio' } });
    // Greylisted once, delivered on the next attempt; the server's reply is kept without the address.
    expect(recep).toMatchObject({ attempts: 2, lastError: { code: 'smtp_deferred' } });
    expect(recep!.lastError!.message).not.toContain(A_MAIL);
    expect(recep!.smtpResponse).toMatch(/^250 .*Queued as RESP\d+/);
    const first = await wireMessage(recep!);
    expect(first.mail.subject).toBe(`Acuse de recibo del envío: Factura electrónica N° ${doc.folio}, emisor RUT ${rutA}`);
    expect(first.mail.attachments[0]!.filename).toMatch(new RegExp(`^RespuestaEnvioDTE_${rutB}_\\d+\\.xml$`));
    const respuesta = flatXml(first.xml);
    expect(respuesta).toContain(`<RutResponde>${rutB}</RutResponde><RutRecibe>${rutA}</RutRecibe>`);
    expect(respuesta).toContain('<EstadoRecepDTE>0</EstadoRecepDTE>');
    const served = await t.call(b.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/envios/${doc.envioId}/respuesta` });
    expect(first.xml.equals(served.rawPayload)).toBe(true);

    const acd = await t.call(b.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${doc.receivedId}/acceptance`,
      payload: { accion: 'ACD' },
    });
    expect(acd.statusCode, acd.body).toBe(200);
    expect(acd.json().acciones[0]).toMatchObject({ accion: 'ACD', registeredAtSii: true });
    const [dAcd] = await settled(`/api/v1/tenants/${tenantB}/received/${doc.receivedId}/deliveries`, 1);
    expect(dAcd).toMatchObject({ status: 'sent', transport: 'smtp', to: A_MAIL, respuesta: { tipo: 'ResultadoDTE', n: 1 } });
    const second = await wireMessage(dAcd!);
    expect(second.mail.subject).toBe(`Aceptación del contenido (ACD): Factura electrónica N° ${doc.folio}, emisor RUT ${rutA}`);
    expect(second.xml.toString('latin1')).toContain('<EstadoDTE>0</EstadoDTE>');

    const erm = await t.call(b.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${doc.receivedId}/acceptance`,
      payload: { accion: 'ERM' },
    });
    expect(erm.statusCode, erm.body).toBe(200);
    const [, dErm] = await settled(`/api/v1/tenants/${tenantB}/received/${doc.receivedId}/deliveries`, 2);
    expect(dErm).toMatchObject({ status: 'sent', transport: 'smtp', to: A_MAIL, respuesta: { tipo: 'EnvioRecibos', n: 2 } });
    const third = await wireMessage(dErm!);
    expect(third.mail.subject).toBe(`Recibo de mercaderías o servicios (ERM): Factura electrónica N° ${doc.folio}, emisor RUT ${rutA}`);
    expect(third.xml.toString('latin1')).toMatch(/^<\?xml version="1\.0" encoding="ISO-8859-1"\?>\n<EnvioRecibos /);
  });

  it('records a skipped answer for a supplier without CorreoEmisor, and sends nothing', async () => {
    const before = smtp.received.length;
    const doc = await aSendsToB(null);
    const [d] = await settled(`/api/v1/tenants/${tenantB}/received/envios/${doc.envioId}/deliveries`, 1);
    expect(d).toMatchObject({ status: 'skipped', skipReason: 'supplier_email_missing', to: null, transport: null });
    // A's own automatic delivery to its receptor (no receptor correo) is skipped too: nothing went out.
    expect(smtp.received.length).toBe(before);
  });

  it('logs no e-mail address', () => {
    expect(logged.some((l) => l.includes('exchange delivery attempt failed'))).toBe(true);
    for (const address of ['proveedor-a.example.cl', 'servicio.example.cl']) expect(logged.filter((l) => l.includes(address))).toEqual([]);
  });
});
