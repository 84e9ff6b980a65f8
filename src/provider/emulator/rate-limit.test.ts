import { afterAll, beforeAll, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { describeEachDb, openSecondConnection, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { parseRateLimits, PRODUCTION_RATE_LIMITS, type RateLimits } from '../simpleapi/protocol.ts';
import { emulatorHarness, issuer, type Harness } from './http.test-support.ts';
import { ephemeralSiiKey } from './sii-key.ts';

/** Small limits so the windows are easy to walk: 3/1s and 5/1m on the DTE host, 1/1s and 2/1m on servicios. */
const LIMITS: RateLimits = parseRateLimits('api=3/1s,5/1m;servicios=1/1s,2/1m')!;
const T = Date.parse('2026-03-02T12:30:00.000Z');

describeEachDb('emulator rate limits (AspNetCoreRateLimit style)', (backend) => {
  let tdb: TestDb;
  let now = T;
  const clock = manualClock('2026-03-02T12:30:00.000Z');
  const siiKey = ephemeralSiiKey();
  const harnesses: Harness[] = [];
  const harness = async (db = tdb.db, limits = LIMITS) => {
    const h = await emulatorHarness({ db, clock, siiKey, processingDelayMs: 0, rateLimits: limits, rateClock: () => now });
    harnesses.push(h);
    return h;
  };

  beforeAll(async () => {
    // A fresh database: the first call creates the emulator's tables before counting.
    tdb = await openTestDb(backend);
  });
  afterAll(async () => {
    for (const h of harnesses) await h.close();
    await tdb.close();
  });

  it('answers 429 text/plain with Retry-After over a limit, and X-Rate-Limit-* of the longest rule on accepted calls', async () => {
    const h = await harness();
    now = T;
    const sub = (key = 'limits-key-one') => h.call('GET', '/api/v1/suscripcion/status', { key });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const a = await sub();
      expect(a.status).toBe(200);
      seen.push([a.headers['x-rate-limit-limit'], a.headers['x-rate-limit-remaining'], a.headers['x-rate-limit-reset']]);
    }
    expect(seen).toEqual([
      ['1m', '4', '2026-03-02T12:31:00.0000000Z'],
      ['1m', '3', '2026-03-02T12:31:00.0000000Z'],
      ['1m', '2', '2026-03-02T12:31:00.0000000Z'],
    ]);
    now = T + 400;
    const over = await sub();
    expect([over.status, over.type, over.text, over.headers['retry-after']]).toEqual([
      429,
      'text/plain; charset=utf-8',
      'API calls quota exceeded! maximum admitted 3 per 1s.',
      '1',
    ]);
    expect(over.headers['x-rate-limit-limit']).toBeUndefined();
    // A 429'd call counted in the 1 s window only: the minute still has 2 left.
    now = T + 1_001;
    expect((await sub()).headers['x-rate-limit-remaining']).toBe('1');
    expect((await sub()).headers['x-rate-limit-remaining']).toBe('0');
    const minute = await sub();
    expect([minute.status, minute.text, minute.headers['retry-after']]).toEqual([
      429,
      'API calls quota exceeded! maximum admitted 5 per 1m.',
      '59',
    ]);
    // Another key has its own budget; the windows start again after they end.
    expect((await sub('limits-key-two')).status).toBe(200);
    now = T + 60_001;
    expect((await sub()).headers['x-rate-limit-remaining']).toBe('4');
  });

  it('checks the limit only after the key: a refused key gets its 401 without headers and is not counted', async () => {
    const h = await harness();
    now = T + 120_000;
    for (let i = 0; i < 5; i++) {
      const bad = await h.call('GET', '/api/v1/suscripcion/status', { key: 'bad' });
      expect([bad.status, bad.headers['x-rate-limit-limit']]).toEqual([401, undefined]);
      const expired = await h.call('POST', '/api/folios/get/33/1', { key: 'limits-expired-key' });
      expect([expired.status, expired.headers['x-rate-limit-limit']]).toEqual([401, undefined]);
    }
    // The plan's refusal comes after the limit: it carries the headers, and counts.
    const quota = await h.call('POST', '/api/folios/get/33/1', { key: 'limits-quota-key' });
    expect([quota.status, quota.headers['x-rate-limit-limit'], quota.headers['x-rate-limit-remaining']]).toEqual([401, '1m', '1']);
    expect((await h.call('POST', '/api/folios/get/33/1', { key: 'limits-quota-key' })).status).toBe(429);
  });

  it('limits servicios separately (1/1s, 2/1m here): a folio request answers with the 1 m headers, then 429', async () => {
    const h = await harness();
    const co = issuer(() => h, clock);
    now = T + 240_000;
    const f = () => h.call('POST', '/api/folios/get/33/1', { key: 'limits-folios-key', input: co.foliosInput(), files: [co.pfx] });
    const first = await f();
    expect([first.status, first.headers['x-rate-limit-limit'], first.headers['x-rate-limit-remaining']]).toEqual([200, '1m', '1']);
    expect((await f()).text).toBe('API calls quota exceeded! maximum admitted 1 per 1s.');
    expect((await h.call('GET', '/api/v1/suscripcion/status', { key: 'limits-folios-key' })).status).toBe(200);
  });

  it('shares the windows between emulators on one database (in-process emulators of several service processes)', async () => {
    const second = await openSecondConnection(tdb);
    const a = await harness();
    const b = await harness(second ?? tdb.db);
    now = T + 360_000;
    const key = 'limits-shared-key';
    expect((await a.call('GET', '/api/v1/suscripcion/status', { key })).status).toBe(200);
    expect((await b.call('GET', '/api/v1/suscripcion/status', { key })).status).toBe(200);
    expect((await a.call('GET', '/api/v1/suscripcion/status', { key })).headers['x-rate-limit-remaining']).toBe('2');
    expect((await b.call('GET', '/api/v1/suscripcion/status', { key })).status).toBe(429);
    // Concurrent calls from both: exactly the limit goes through.
    now = T + 480_000;
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call('GET', '/api/v1/suscripcion/status', { key: 'limits-burst-key' })),
    );
    expect(burst.filter((r) => r.status === 200)).toHaveLength(3);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(7);
    await second?.close();
  });

  it('enforces the production limits by default shape: 3/1s and 40/1m on the DTE host', async () => {
    const h = await harness(tdb.db, PRODUCTION_RATE_LIMITS);
    now = T + 600_000;
    const r = await Promise.all(Array.from({ length: 4 }, () => h.call('GET', '/api/v1/suscripcion/status', { key: 'limits-prod-key' })));
    expect(r.map((x) => x.status).sort()).toEqual([200, 200, 200, 429]);
    expect(r.find((x) => x.status === 200)!.headers['x-rate-limit-limit']).toBe('1m');
  });
});
