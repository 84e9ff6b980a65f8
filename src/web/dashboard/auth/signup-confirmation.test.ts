import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDb } from '../../../../test/support/db.ts';
import { startTestApp, type TestApp } from '../../../../test/support/app.ts';
import { isAppError } from '../../../errors.ts';
import { manualClock } from '../../../lib/clock.ts';
import { createMemoryRateLimiter } from '../../../lib/rate-limiter.ts';
import { createDashboardAuthService, type SignupMailer } from '../../../modules/dashboard-auth/index.ts';
import { createSignupMailer } from './signup-mail.ts';

/**
 * Sign-up with an e-mailed confirmation, on the service with a recording mailer: a new address
 * gets a pending sign-up and a link, a registered one an "already have an account" mail and
 * nothing else; the link works once, within 24 h, and creates the account with the password given
 * at sign-up; a second sign-up replaces the first link. Nothing in the database holds the token.
 */
describeEachDb('dashboard sign-up with e-mail confirmation', (backend) => {
  let t: TestApp;
  const clock = manualClock('2026-11-29T10:00:00.000Z');
  const sent: { kind: 'confirm' | 'existing'; to: string; lang: string; url: string }[] = [];
  const mailer: SignupMailer = {
    confirmLink: (to, lang, url) => void sent.push({ kind: 'confirm', to, lang, url }),
    alreadyRegistered: (to, lang, url) => void sent.push({ kind: 'existing', to, lang, url }),
  };
  const service = (over: { signupEnabled?: boolean; burst?: number } = {}) =>
    createDashboardAuthService({
      db: t.tdb.db,
      clock,
      accounts: t.ctx.services.accounts,
      members: t.ctx.services.members,
      rateLimiter: createMemoryRateLimiter(),
      settings: {
        idleMs: 30 * 60_000,
        absoluteMs: 12 * 3_600_000,
        anonymousMs: 2 * 3_600_000,
        signupEnabled: over.signupEnabled ?? true,
        loginRateLimit: { perSecond: 0.01, burst: over.burst ?? 1000 },
        confirmationTtlMs: 24 * 3_600_000,
        publicUrl: 'https://dte.example.cl/',
      },
      mailer,
    });
  let auth: ReturnType<typeof service>;
  const ip = '192.0.2.9';
  let n = 0;
  const email = () => `pending${++n}-${Math.random().toString(36).slice(2)}@example.com`;
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'ok';
    } catch (e) {
      if (isAppError(e)) return e.code;
      throw e;
    }
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
    auth = service();
  });
  afterAll(() => t.close());

  it('a new e-mail gets a pending sign-up and a link; the link creates the account with that password and logs in', async () => {
    const e = email();
    expect(auth.confirmsByEmail).toBe(true);
    const r = await auth.requestSignUp({ name: '  Mi SaaS ', email: ` ${e} `, password: 'una clave larga', ip, lang: 'es' });
    expect(r).toEqual({ email: e });
    const mail = sent.at(-1)!;
    expect(mail).toMatchObject({ kind: 'confirm', to: e, lang: 'es' });
    expect(mail.url).toMatch(/^https:\/\/dte\.example\.cl\/signup\/confirm\?token=[A-Za-z0-9_-]{43}$/);
    expect(await t.ctx.services.accounts.findByEmail(e)).toBeUndefined();

    const pending = await t.tdb.db.query<Record<string, unknown>>('select * from pending_signups where email = $1', [e]);
    expect(pending.rows).toHaveLength(1);
    expect(JSON.stringify(pending.rows)).not.toContain(tokenOf(mail.url));
    expect(pending.rows[0]!.password_hash).toMatch(/^scrypt\$/);
    expect((pending.rows[0]!.expires_at as Date).toISOString()).toBe('2026-11-30T10:00:00.000Z');

    const done = await auth.confirmSignUp({ token: tokenOf(mail.url) });
    expect(done.session.account).toMatchObject({ name: 'Mi SaaS', email: e });
    expect(await auth.resolve(done.token)).toBeDefined();
    // The password chosen at sign-up is the account's.
    const login = await auth.logIn({ email: e, password: 'una clave larga', ip });
    expect(login.session.account?.email).toBe(e);
    expect((await t.tdb.db.query('select 1 from pending_signups where email = $1', [e])).rows).toHaveLength(0);
    // Single use.
    expect(await codeOf(auth.confirmSignUp({ token: tokenOf(mail.url) }))).toBe('signup_link_invalid');
  });

  it('a registered e-mail gets the same answer, an "already have an account" mail, and nothing is created', async () => {
    const e = email();
    await t.ctx.services.accounts.create({ name: 'Existing', email: e });
    const before = sent.length;
    const r = await auth.requestSignUp({ name: 'Otro', email: e.toUpperCase(), password: 'una clave larga', ip, lang: 'en' });
    expect(r).toEqual({ email: e.toUpperCase() });
    expect(sent.slice(before)).toEqual([{ kind: 'existing', to: e.toUpperCase(), lang: 'en', url: 'https://dte.example.cl/login' }]);
    expect((await t.tdb.db.query('select 1 from pending_signups where lower(email) = lower($1)', [e])).rows).toHaveLength(0);
    expect((await t.tdb.db.query('select 1 from accounts where lower(email) = lower($1)', [e])).rows).toHaveLength(1);
  });

  it('refuses bad input before anything is stored or sent', async () => {
    const before = sent.length;
    expect(await codeOf(auth.requestSignUp({ name: 'X', email: 'not-an-email', password: 'una clave larga', ip, lang: 'es' }))).toBe(
      'invalid_email',
    );
    expect(await codeOf(auth.requestSignUp({ name: '  ', email: email(), password: 'una clave larga', ip, lang: 'es' }))).toBe(
      'invalid_name',
    );
    expect(await codeOf(auth.requestSignUp({ name: 'X', email: email(), password: 'corta', ip, lang: 'es' }))).toBe('password_too_short');
    expect(sent.length).toBe(before);
  });

  it('an expired link is refused with its own code; an unknown or malformed one as invalid', async () => {
    const e = email();
    await auth.requestSignUp({ name: 'X', email: e, password: 'una clave larga', ip, lang: 'es' });
    const token = tokenOf(sent.at(-1)!.url);
    clock.advance(24 * 3_600_000);
    expect(await codeOf(auth.confirmSignUp({ token }))).toBe('signup_link_expired');
    clock.advance(-1);
    // Still within its 24 h a millisecond earlier: the expiry check is not what consumed it.
    expect(await codeOf(auth.confirmSignUp({ token }))).toBe('ok');
    clock.advance(1);
    expect(await codeOf(auth.confirmSignUp({ token: 'A'.repeat(43) }))).toBe('signup_link_invalid');
    expect(await codeOf(auth.confirmSignUp({ token: 'short' }))).toBe('signup_link_invalid');
    expect(await codeOf(auth.confirmSignUp({ token: undefined }))).toBe('signup_link_invalid');
  });

  it('a second sign-up for the same pending e-mail replaces the first (its link stops working)', async () => {
    const e = email();
    await auth.requestSignUp({ name: 'Primero', email: e, password: 'una clave larga', ip, lang: 'es' });
    const first = tokenOf(sent.at(-1)!.url);
    await auth.requestSignUp({ name: 'Segundo', email: e, password: 'otra clave larga', ip, lang: 'es' });
    const second = tokenOf(sent.at(-1)!.url);
    expect((await t.tdb.db.query('select 1 from pending_signups where email = $1', [e])).rows).toHaveLength(1);
    expect(await codeOf(auth.confirmSignUp({ token: first }))).toBe('signup_link_invalid');
    const done = await auth.confirmSignUp({ token: second });
    expect(done.session.account?.name).toBe('Segundo');
  });

  it('a link whose e-mail got an account meanwhile is spent and says so', async () => {
    const e = email();
    await auth.requestSignUp({ name: 'X', email: e, password: 'una clave larga', ip, lang: 'es' });
    const token = tokenOf(sent.at(-1)!.url);
    await t.ctx.services.accounts.create({ name: 'CLI', email: e });
    expect(await codeOf(auth.confirmSignUp({ token }))).toBe('signup_link_account_exists');
    expect(await codeOf(auth.confirmSignUp({ token }))).toBe('signup_link_invalid');
  });

  it('purges expired pending sign-ups', async () => {
    const e = email();
    await auth.requestSignUp({ name: 'X', email: e, password: 'una clave larga', ip, lang: 'es' });
    clock.advance(25 * 3_600_000);
    await auth.purgeExpired();
    expect((await t.tdb.db.query('select 1 from pending_signups where email = $1', [e])).rows).toHaveLength(0);
  });

  it('is rate limited per IP and honours SIGNUP_ENABLED=false', async () => {
    const limited = service({ burst: 2 });
    const go = () => limited.requestSignUp({ name: 'X', email: email(), password: 'una clave larga', ip: '192.0.2.77', lang: 'es' });
    expect(await codeOf(go())).toBe('ok');
    expect(await codeOf(go())).toBe('ok');
    expect(await codeOf(go())).toBe('login_rate_limited');
    const off = service({ signupEnabled: false });
    expect(await codeOf(off.requestSignUp({ name: 'X', email: email(), password: 'una clave larga', ip, lang: 'es' }))).toBe(
      'signup_disabled',
    );
    expect(await codeOf(off.confirmSignUp({ token: 'A'.repeat(43) }))).toBe('signup_disabled');
  });
});

it('the mailer sends through the transport without awaiting it, and logs a failure without the address or the link', async () => {
  const mails: { to: string; subject: string; text: string; messageId: string }[] = [];
  const warnings: string[] = [];
  let fail = false;
  const mailer = createSignupMailer({
    from: 'Panel DTE <no-reply@dte.example.cl>',
    log: { warn: (context, message) => void warnings.push(JSON.stringify([message, context])) },
    transport: {
      send: async (m) => {
        if (fail) throw Object.assign(new Error('550 <ana@example.com>: no such user'), { code: 'smtp_rejected' });
        mails.push(m);
        return { transport: 'smtp', messageId: m.messageId, response: '250 ok' };
      },
    },
  });
  mailer.confirmLink('ana@example.com', 'es', 'https://dte.example.cl/signup/confirm?token=SECRET-TOKEN');
  mailer.alreadyRegistered('ana@example.com', 'en', 'https://dte.example.cl/login');
  await vi.waitFor(() => expect(mails).toHaveLength(2));
  expect(mails[0]).toMatchObject({ to: 'ana@example.com', subject: 'Confirma tu cuenta en el Panel DTE' });
  expect(mails[0]!.text).toContain('https://dte.example.cl/signup/confirm?token=SECRET-TOKEN');
  expect(mails[0]!.messageId).toMatch(/^<signup-[0-9a-f-]+@dte\.example\.cl>$/);
  expect(mails[1]).toMatchObject({ subject: 'You already have a DTE dashboard account' });
  expect(mails[1]!.text).toContain('https://dte.example.cl/login');
  fail = true;
  mailer.confirmLink('ana@example.com', 'es', 'https://dte.example.cl/signup/confirm?token=SECRET-TOKEN');
  await vi.waitFor(() => expect(warnings).toHaveLength(1));
  expect(warnings[0]).toContain('smtp_rejected');
  expect(warnings[0]).not.toContain('ana@example.com');
  expect(warnings[0]).not.toContain('SECRET-TOKEN');
});
