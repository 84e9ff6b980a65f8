import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Limits that more keys, or no key at all, cannot get around (src/http/plugins/auth.ts): one
 * budget per account across its keys, and one per client address for failed authentication.
 */
describeEachDb('rate limits per account and per address', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: {
        RATE_LIMIT_PER_SECOND: '1000',
        RATE_LIMIT_BURST: '1000',
        ACCOUNT_RATE_LIMIT_PER_SECOND: '1',
        ACCOUNT_RATE_LIMIT_BURST: '6',
        AUTH_FAILURE_RATE_LIMIT_PER_SECOND: '1',
        AUTH_FAILURE_RATE_LIMIT_BURST: '5',
      },
    });
  });
  afterAll(() => t.close());

  const get = (key: string | undefined, ip: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/account', remoteAddress: ip, headers: key ? { authorization: `Bearer ${key}` } : {} });

  it("shares one budget among all of an account's keys", async () => {
    const { accountId, key } = await t.account('Many keys');
    const keys = [key];
    for (let i = 0; i < 3; i++) keys.push((await t.ctx.services.apiKeys.create(accountId, { name: `k${i}` })).key);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await get(keys[i % keys.length], '198.51.100.1')).statusCode);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(7); // the burst, plus at most one refill
    const limited = await get(keys[0], '198.51.100.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(limited.json().error.message).toMatch(/account/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another account is not affected.
    const other = await t.account('Other');
    expect((await get(other.key, '198.51.100.1')).statusCode).toBe(200);
  });

  it('answers 429 to an address that keeps failing authentication, without looking its keys up', async () => {
    const ip = '203.0.113.9';
    const bad = `sk_live_${'Z'.repeat(43)}`;
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) codes.push((await get(bad, ip)).json().error.code);
    expect(codes).toEqual(Array(5).fill('invalid_api_key'));
    const limited = await get(bad, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('auth_rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // While limited, the address gets no verdict on any key, missing keys included.
    const good = await t.account('Good');
    expect((await get(good.key, ip)).statusCode).toBe(429);
    expect((await get(undefined, ip)).statusCode).toBe(429);
    // Other addresses are unaffected.
    expect((await get(good.key, '203.0.113.10')).statusCode).toBe(200);
    expect((await get(bad, '203.0.113.10')).statusCode).toBe(401);
  });
});
