import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it, vi, type MockInstance } from 'vitest';
import { loggerOptions } from '../../../src/http/log.ts';
import { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * Sign-up through the real app with SMTP configured (a real SMTP server in the test, read back
 * with mailparser): a new and a registered e-mail get byte-identical answers; the new one gets a
 * confirmation link that creates the account and logs in, once; the registered one gets "you
 * already have an account" and nothing is created; an expired link is refused. Neither the
 * addresses nor the tokens appear in any log line (trace level, plus the console).
 * Without SMTP, sign-up still creates the account at once (the embedded default).
 */
interface Mail {
  to: string[];
  subject: string;
  text: string;
}

function startSmtpServer() {
  const received: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void simpleParser(Buffer.concat(chunks)).then((m) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: m.subject ?? '', text: m.text ?? '' });
          cb(null, 'Queued');
        }, cb);
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

const PASSWORD = 'una clave bien larga';
/** APP_URL is https, so the session cookie is the `__Host-` one. */
const SESSION = '__Host-dte_session';
const ENV = { PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000', APP_URL: 'https://dte.example.cl' };

/** What a person does with the e-mailed link: open it, then press its button (a POST with the page's CSRF token). */
async function confirm(client: DashboardClient, link: string) {
  const page = await client.get(link);
  if (page.statusCode !== 200) return page;
  return client.post('/signup/confirm', { token: new URL(link, 'http://localhost').searchParams.get('token') ?? '' });
}

describeEachDb('dashboard sign-up with SMTP: no answer tells whether an e-mail is registered', (backend) => {
  let t: TestApp;
  let smtp: ReturnType<typeof startSmtpServer>;
  const clock = manualClock('2026-11-29T10:00:00.000Z');
  const logs: string[] = [];
  let spies: MockInstance[] = [];
  let n = 0;
  /** Addresses of equal length, so even Content-Length cannot differ. */
  const address = (kind: 'new' | 'old') => `${kind}-${String(++n).padStart(4, '0')}-${Math.random().toString(36).slice(2, 10)}@example.com`;

  const mailTo = async (to: string): Promise<Mail> => {
    await vi.waitFor(() => expect(smtp.received.some((m) => m.to.includes(to))).toBe(true), { timeout: 10_000, interval: 25 });
    const mails = smtp.received.filter((m) => m.to.includes(to));
    expect(mails).toHaveLength(1);
    return mails[0]!;
  };
  const linkIn = (mail: Mail) => {
    const m = /https:\/\/dte\.example\.cl(\/signup\/confirm\?token=[A-Za-z0-9_-]+)/.exec(mail.text);
    expect(m, mail.text).not.toBeNull();
    return m![1]!;
  };
  const accountExists = async (email: string) =>
    (await t.tdb.db.query('select 1 from accounts where lower(email) = lower($1)', [email])).rows.length > 0;

  const signUp = async (client: DashboardClient, email: string, password = PASSWORD) => {
    await client.get('/signup');
    return client.post('/signup', { name: 'Mi SaaS', email, password });
  };

  beforeAll(async () => {
    spies = (['log', 'error', 'warn', 'info', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logs.push(args.map((a) => JSON.stringify(a)).join(' '))),
    );
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    smtp = startSmtpServer();
    const port = await smtp.listen();
    t = await startTestApp(backend, {
      clock,
      env: { ...ENV, SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Panel DTE <no-reply@dte.example.cl>', LOG_LEVEL: 'trace' },
      logger: { ...loggerOptions('trace'), stream },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    for (const s of spies) s.mockRestore();
  });

  it('answers a new and a registered e-mail byte for byte the same', async () => {
    const fresh = address('new');
    const taken = address('old');
    expect(fresh.length).toBe(taken.length);
    await t.ctx.services.accounts.create({ name: 'Ya registrada', email: taken });

    const a = new DashboardClient(t.app, '198.51.100.21');
    const b = new DashboardClient(t.app, '198.51.100.22');
    const pa = await signUp(a, fresh);
    const pb = await signUp(b, taken);
    // Both POSTs redirect (303) to the same page, so a reload never sends another e-mail.
    expect([pa.statusCode, pa.headers.location]).toEqual([303, '/signup/sent']);
    const postHeaders = (r: typeof pa) =>
      Object.fromEntries(Object.entries(r.headers).filter(([k]) => !['set-cookie', 'date', 'request-id'].includes(k)));
    expect(postHeaders(pb)).toEqual(postHeaders(pa));
    expect(pb.body).toBe(pa.body);
    expect(pa.cookies.filter((c) => c.name === SESSION)).toEqual([]);
    const ra = await a.get('/signup/sent');
    const rb = await b.get('/signup/sent');

    expect(ra.statusCode).toBe(200);
    expect(rb.statusCode).toBe(ra.statusCode);
    const same = (body: string, email: string, csrf: string) => body.split(email).join('{email}').split(csrf).join('{csrf}');
    expect(same(rb.body, taken, b.csrf)).toBe(same(ra.body, fresh, a.csrf));
    const headers = (r: typeof ra) =>
      Object.fromEntries(Object.entries(r.headers).filter(([k]) => !['set-cookie', 'date', 'request-id'].includes(k)));
    expect(headers(rb)).toEqual(headers(ra));
    // Neither answer sets a session cookie of its own: no one is logged in yet.
    expect(ra.cookies.filter((c) => c.name === SESSION)).toEqual([]);
    expect(rb.cookies.filter((c) => c.name === SESSION)).toEqual([]);
    expect(textOf(ra.body)).toContain(`Te enviamos un correo a ${fresh} para confirmar`);
    // A reload shows the page again, without the address, and sends nothing.
    const reload = await a.get('/signup/sent');
    expect(reload.statusCode).toBe(200);
    expect(reload.body).not.toContain(fresh);
    expect(textOf(reload.body)).toContain('Te enviamos un correo para confirmar tu cuenta');

    // The mails differ: a link for the new address, "you already have an account" for the other.
    const toFresh = await mailTo(fresh);
    expect(toFresh.subject).toBe('Confirma tu cuenta en el Panel DTE');
    const toTaken = await mailTo(taken);
    expect(toTaken.subject).toBe('Ya tienes una cuenta en el Panel DTE');
    expect(toTaken.text).toContain('https://dte.example.cl/login');
    expect(toTaken.text).not.toContain('/signup/confirm');
    expect((await t.tdb.db.query('select 1 from pending_signups where lower(email) = lower($1)', [taken])).rows).toEqual([]);
    expect((await t.tdb.db.query<{ name: string }>('select name from accounts where lower(email) = lower($1)', [taken])).rows).toEqual([
      { name: 'Ya registrada' },
    ]);
  });

  it('the link shows a button whose POST creates the account and logs the browser in; a second use fails', async () => {
    const fresh = address('new');
    const browser = new DashboardClient(t.app, '198.51.100.23');
    expect((await signUp(browser, fresh)).statusCode).toBe(303);
    expect(await accountExists(fresh)).toBe(false);
    const link = linkIn(await mailTo(fresh));

    // Opening the link (what a mail scanner does) changes nothing: no account, no login, the token still good.
    const scanner = new DashboardClient(t.app, '198.51.100.22');
    const page = await scanner.get(link);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Confirmar y entrar');
    expect(await accountExists(fresh)).toBe(false);
    expect((await scanner.get('/')).statusCode).toBe(303);

    const before = browser.session(SESSION);
    const confirmed = await confirm(browser, link);
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe('/');
    expect(browser.session(SESSION)).toBeDefined();
    expect(browser.session(SESSION)).not.toBe(before);
    expect(await accountExists(fresh)).toBe(true);
    const home = await browser.get('/');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Mi SaaS');

    // The password given at sign-up logs in.
    const other = new DashboardClient(t.app, '198.51.100.24');
    expect((await other.logIn(fresh, PASSWORD)).statusCode).toBe(303);

    // Single use: the same link again (another browser) is refused, and logs no one in.
    const again = new DashboardClient(t.app, '198.51.100.25');
    const second = await confirm(again, link);
    expect(second.statusCode).toBe(404);
    expect(textOf(second.body)).toContain('no es válido o ya se usó');
    expect((await again.get('/')).statusCode).toBe(303);
  });

  it('refuses an expired link with a clear message (clock moved past 24 h)', async () => {
    const fresh = address('new');
    const browser = new DashboardClient(t.app, '198.51.100.26');
    await signUp(browser, fresh);
    const link = linkIn(await mailTo(fresh));
    clock.advance(24 * 3_600_000 + 1000);
    const r = await confirm(new DashboardClient(t.app, '198.51.100.27'), link);
    expect(r.statusCode).toBe(410);
    expect(textOf(r.body)).toContain('Este enlace de confirmación venció');
    expect(await accountExists(fresh)).toBe(false);
  });

  it('still refuses bad input on the form', async () => {
    const c = new DashboardClient(t.app, '198.51.100.28');
    const r = await signUp(c, address('new'), 'corta');
    expect(r.statusCode).toBe(400);
    expect(textOf(r.body)).toContain('al menos 10 caracteres');
  });

  it('never logs an address or a token', () => {
    const tokens = smtp.received.flatMap((m) => [...m.text.matchAll(/token=([A-Za-z0-9_-]+)/g)].map((x) => x[1]!));
    expect(tokens.length).toBeGreaterThan(0);
    const all = logs.join('\n');
    expect(all).toContain('/signup/confirm?token=[redacted]');
    for (const token of tokens) expect(all).not.toContain(token);
    for (const to of smtp.received.flatMap((m) => m.to)) expect(all.toLowerCase()).not.toContain(to.toLowerCase());
  });
});

describeEachDb('dashboard sign-up without SMTP (the embedded default)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: ENV });
  });
  afterAll(() => t.close());

  it('creates the account at once and logs in, as before; a taken e-mail is said to be taken (documented trade-off)', async () => {
    expect(t.ctx.services.dashboardAuth.confirmsByEmail).toBe(false);
    const c = new DashboardClient(t.app, '198.51.100.31');
    const email = await c.signUp('Sin SMTP', PASSWORD);
    const home = await c.get('/');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Sin SMTP');
    expect(await t.ctx.services.accounts.findByEmail(email)).toMatchObject({ name: 'Sin SMTP' });
    const again = new DashboardClient(t.app, '198.51.100.32');
    await again.get('/signup');
    const r = await again.post('/signup', { name: 'Otra', email, password: PASSWORD });
    expect(r.statusCode).toBe(409);
    expect(textOf(r.body)).toContain('Ya existe una cuenta con ese correo');
    // The confirmation route exists but has nothing to confirm.
    expect((await confirm(again, '/signup/confirm?token=' + 'A'.repeat(43))).statusCode).toBe(404);
  });

  it('limits sign-up attempts per IP (LOGIN_RATE_LIMIT_BURST), in this mode too', async () => {
    const limited = await startTestApp(backend, { env: { ...ENV, LOGIN_RATE_LIMIT_BURST: '2' } });
    try {
      const c = new DashboardClient(limited.app, '198.51.100.33');
      await c.get('/signup');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await c.post('/signup', { name: 'X', email: `x${i}@example.com`, password: 'corta' })).statusCode);
      expect(statuses).toEqual([400, 400, 429]);
    } finally {
      await limited.close();
    }
  });
});
