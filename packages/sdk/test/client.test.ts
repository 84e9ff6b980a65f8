import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DteApiError, DteClient, DteConnectionError, DteRateLimitError, DteServerError } from '../src/index.ts';

/**
 * The client's retry and error handling, against a local HTTP server whose answers each test
 * scripts (429 and 503 with Retry-After, a proxy's HTML error). The flows against the real service
 * are in test/e2e/sdk.e2e.test.ts.
 */
type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };
let script: Answer[] = [];
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const a = script.shift() ?? { status: 200, body: '{"id":"ok"}' };
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body ?? '');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  script = [];
  seen = [];
});

const rateLimited = (retryAfter: string): Answer => ({
  status: 429,
  headers: { 'retry-after': retryAfter, 'request-id': 'req_429' },
  body: JSON.stringify({ error: { code: 'rate_limited', message: 'Too many requests.', requestId: 'req_429' } }),
});

describe('DteClient retries and errors', () => {
  it('waits Retry-After on a 429 and retries the POST with the same Idempotency-Key', async () => {
    script = [rateLimited('1')];
    const dte = new DteClient({ baseUrl, apiKey: 'sk_live_x' });
    const started = Date.now();
    const tenant = await dte.post('/api/v1/tenants', { body: { rutEmpresa: '1-9' } as never });
    expect(tenant).toEqual({ id: 'ok' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toBeTruthy();
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(seen[0]!.headers.authorization).toBe('Bearer sk_live_x');
  });

  it('throws DteRateLimitError with retryAfter once retries are spent, or at once when Retry-After is too long', async () => {
    script = [rateLimited('0'), rateLimited('0')];
    const e = await new DteClient({ baseUrl, apiKey: 'k', maxRetries: 1 }).get('/api/v1/account').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DteRateLimitError);
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 0, requestId: 'req_429' });
    expect(seen).toHaveLength(2);

    seen = [];
    script = [rateLimited('120')];
    const long = await new DteClient({ baseUrl, apiKey: 'k', maxRetryDelayMs: 5_000 }).get('/api/v1/account').catch((x: unknown) => x);
    expect(long).toMatchObject({ code: 'rate_limited', retryAfter: 120 });
    expect(seen).toHaveLength(1);
  });

  it('retries a 503 and gives a code to an answer without the error envelope', async () => {
    script = [
      { status: 503, headers: { 'retry-after': '0' }, body: '{"error":{"code":"database_unavailable","message":"x","requestId":"r"}}' },
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' },
    ];
    const e = await new DteClient({ baseUrl, apiKey: 'k' }).get('/api/v1/account').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DteServerError);
    expect(e).toBeInstanceOf(DteApiError);
    expect(e).toMatchObject({ status: 502, code: 'http_502' });
    expect((e as Error).message).toContain('Bad gateway');
  });

  it('an explicit idempotencyKey is sent as given; GETs carry none', async () => {
    const dte = new DteClient({ baseUrl, apiKey: 'k' });
    await dte.post('/api/v1/api-keys', { body: { name: 'n' }, idempotencyKey: 'order-42' });
    await dte.get('/api/v1/account');
    expect(seen[0]!.headers['idempotency-key']).toBe('order-42');
    expect(seen[1]!.headers['idempotency-key']).toBeUndefined();
  });

  it('a server that is not there is a DteConnectionError after the retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = await new DteClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', maxRetries: 1 })
      .get('/api/v1/account')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DteConnectionError);
    expect((e as Error).message).toContain('GET /api/v1/account');
  });

  it('abandons an attempt after timeoutMs and retries it with the same Idempotency-Key', async () => {
    script = [{ status: 200, body: '{"id":"late"}', delayMs: 2_000 }];
    const dte = new DteClient({ baseUrl, apiKey: 'k', timeoutMs: 300 });
    expect(await dte.post('/api/v1/api-keys', { body: { name: 'n' } })).toEqual({ id: 'ok' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);

    seen = [];
    script = [{ status: 200, body: '{}', delayMs: 2_000 }];
    const e = await new DteClient({ baseUrl, apiKey: 'k', timeoutMs: 300, maxRetries: 0 }).get('/api/v1/account').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DteConnectionError);
    expect((e as Error).message).toMatch(/timeout|aborted/i);
  });

  it('requires a base URL and a key', () => {
    expect(() => new DteClient({ baseUrl: '', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => new DteClient({ baseUrl, apiKey: '' })).toThrow(/apiKey/);
  });
});
