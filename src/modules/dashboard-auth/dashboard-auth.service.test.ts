import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/support/db.ts';
import { startTestApp, type TestApp } from '../../../test/support/app.ts';
import { manualClock } from '../../lib/clock.ts';
import { csrfMatches } from './dashboard-auth.service.ts';

describeEachDb('dashboard auth service', (backend) => {
  let t: TestApp;
  const clock = manualClock('2026-11-22T10:00:00.000Z');
  beforeAll(async () => {
    t = await startTestApp(backend, {
      clock,
      env: { DASHBOARD_SESSION_IDLE: '30m', DASHBOARD_SESSION_MAX: '12h', LOGIN_RATE_LIMIT_BURST: '1000' },
    });
  });
  afterAll(() => t.close());
  const auth = () => t.ctx.services.dashboardAuth;
  const ip = '192.0.2.1';
  let n = 0;
  const email = () => `holder${++n}-${Math.random().toString(36).slice(2)}@example.com`;

  it('signs up, logs in with a new token each time, and stores only hashes', async () => {
    const e = email();
    const up = await auth().signUp({ name: 'Mi SaaS', email: e, password: 'una clave larga', ip });
    expect(up.session.account?.email).toBe(e);
    const login = await auth().logIn({ email: e.toUpperCase(), password: 'una clave larga', ip });
    expect(login.token).not.toBe(up.token);
    expect(login.session.csrfToken).not.toBe(up.session.csrfToken);
    const rows = await t.tdb.db.query<Record<string, unknown>>('select * from dashboard_sessions');
    const dump = JSON.stringify(rows.rows);
    expect(dump).not.toContain(login.token);
    expect(dump).not.toContain(login.session.csrfToken);
    // The password is the owner member's (docs/dashboard.md "Members and roles"), and only its hash.
    const owner = await t.tdb.db.query<{ password_hash: string; role: string }>(
      'select password_hash, role from account_members where email = $1',
      [e],
    );
    expect(owner.rows[0]).toMatchObject({ role: 'owner', password_hash: expect.stringMatching(/^scrypt\$/) });
    const account = await t.tdb.db.query<{ password_hash: string | null }>('select password_hash from accounts where email = $1', [e]);
    expect(account.rows[0]!.password_hash).toBeNull();
  });

  it('gives one generic error for a wrong password, an unknown e-mail and a password-less account', async () => {
    const e = email();
    await auth().signUp({ name: 'X', email: e, password: 'una clave larga', ip });
    const cli = await t.ctx.services.accounts.create({ name: 'CLI', email: email() });
    const attempts = [
      { email: e, password: 'otra clave larga' },
      { email: 'nobody@example.com', password: 'una clave larga' },
      { email: cli.account.email, password: 'una clave larga' },
      { email: 'not an email', password: 'x' },
    ];
    for (const a of attempts) {
      const err = await auth()
        .logIn({ ...a, ip })
        .catch((x: unknown) => x as { code: string; message: string; kind: string });
      expect(err).toMatchObject({
        code: 'invalid_credentials',
        kind: 'unauthorized',
        message: 'The e-mail or the password is not correct.',
      });
    }
  });

  it('replaces the presented session at login (fixation) and ends it at logout', async () => {
    const e = email();
    await auth().signUp({ name: 'X', email: e, password: 'una clave larga', ip });
    const anon = await auth().startAnonymous();
    expect(anon.session.account).toBeNull();
    expect(await auth().resolve(anon.token)).toBeDefined();
    const login = await auth().logIn({ email: e, password: 'una clave larga', ip }, anon.token);
    expect(await auth().resolve(anon.token)).toBeUndefined();
    expect((await auth().resolve(login.token))?.account?.email).toBe(e);
    await auth().logOut(login.token);
    expect(await auth().resolve(login.token)).toBeUndefined();
  });

  it('expires sessions when idle and at their absolute limit', async () => {
    const e = email();
    const { token } = await auth().signUp({ name: 'X', email: e, password: 'una clave larga', ip });
    clock.advance(29 * 60_000);
    expect(await auth().resolve(token)).toBeDefined(); // activity resets the idle clock
    clock.advance(29 * 60_000);
    expect(await auth().resolve(token)).toBeDefined();
    clock.advance(31 * 60_000);
    expect(await auth().resolve(token)).toBeUndefined();

    const again = await auth().logIn({ email: e, password: 'una clave larga', ip });
    let alive = 0;
    for (let i = 0; i < 30; i++) {
      clock.advance(29 * 60_000);
      if (!(await auth().resolve(again.token))) break;
      alive++;
    }
    // Active every 29 minutes, it still ends at its 12-hour absolute expiry (24 × 29 min = 11.6 h).
    expect(alive).toBe(24);
    expect(await auth().resolve(again.token)).toBeUndefined();
    // Both of this test's sessions are past their limits now, so the purge removes at least them,
    // and a second purge finds nothing left to remove.
    expect(await auth().purgeExpired()).toBeGreaterThanOrEqual(2);
    expect(await auth().purgeExpired()).toBe(0);
  });

  it('binds the CSRF token to the session', async () => {
    const a = await auth().startAnonymous();
    const b = await auth().startAnonymous();
    expect(csrfMatches(a.session, a.session.csrfToken)).toBe(true);
    expect(csrfMatches(a.session, b.session.csrfToken)).toBe(false);
    expect(csrfMatches(a.session, undefined)).toBe(false);
    expect(csrfMatches(a.session, '')).toBe(false);
    expect(csrfMatches(a.session, a.session.csrfToken.slice(0, -1) + 'x')).toBe(false);
  });

  it('checks passwords at sign-up, and set-password ends every session of the account', async () => {
    const short = await auth()
      .signUp({ name: 'X', email: email(), password: 'corta', ip })
      .catch((e: unknown) => e);
    expect(short).toMatchObject({ code: 'password_too_short', param: 'password' });
    const e = email();
    const s1 = await auth().signUp({ name: 'X', email: e, password: 'una clave larga', ip });
    const s2 = await auth().logIn({ email: e, password: 'una clave larga', ip });
    const r = await auth().setPassword(e, 'la clave nueva y larga');
    expect(r.sessionsEnded).toBe(2);
    expect(await auth().resolve(s1.token)).toBeUndefined();
    expect(await auth().resolve(s2.token)).toBeUndefined();
    await expect(auth().logIn({ email: e, password: 'una clave larga', ip })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect((await auth().logIn({ email: e, password: 'la clave nueva y larga', ip })).session.account?.email).toBe(e);
    await expect(auth().setPassword('nobody@example.com', 'una clave larga')).rejects.toMatchObject({ code: 'account_not_found' });
  });
});
