import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from './http-sender.ts';
import type { Resolver } from './url-policy.ts';

/** A local server whose behaviour each test picks by path; it records what it saw. */
let server: http.Server;
let port: number;
const seen: { path: string; host: string | undefined; body: string; socket: number }[] = [];
const open = new Set<http.ServerResponse>();
/** Connections that have carried a request, numbered in the order they were first used. */
const sockets = new Map<object, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reused = sockets.has(req.socket);
      if (!reused) sockets.set(req.socket, sockets.size + 1);
      seen.push({ path: req.url ?? '', host: req.headers.host, body: Buffer.concat(chunks).toString(), socket: sockets.get(req.socket)! });
      switch (req.url) {
        case '/reset-if-reused':
          // What a receiver that closed an idle kept connection looks like to the sender.
          if (reused) return req.socket.destroy();
          return res.writeHead(200).end('fresh');
        case '/ok':
          return res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
        case '/redirect':
          return res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
        case '/hang':
          open.add(res);
          return;
        case '/big': {
          // Streams forever: the sender must stop reading at the cap.
          open.add(res);
          res.writeHead(500);
          const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('x'.repeat(1024))), 1);
          return;
        }
        case '/slow':
          return void setTimeout(() => res.writeHead(200).end('late'), 500);
        case '/busy':
          return res.writeHead(503, { 'retry-after': '120' }).end('later');
        case '/nul':
          return res.writeHead(400).end('bad\u0000input');
        default:
          return res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const r of open) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const local = (opts: { allowPrivateNetworks?: boolean; resolver?: Resolver; timeoutMs?: number } = {}) =>
  createHttpSender({
    timeoutMs: opts.timeoutMs ?? 2_000,
    allowPrivateNetworks: opts.allowPrivateNetworks ?? true,
    resolver: opts.resolver ?? (async () => [{ address: '127.0.0.1', family: 4 }]),
  });
const req = (path: string, host = `127.0.0.1:${port}`) => ({
  url: `http://${host}${path}`,
  headers: { 'content-type': 'application/json' },
  body: '{"a":1}',
});

describe('http sender', () => {
  it('posts the body and reads the answer', async () => {
    const r = await local()(req('/ok'));
    expect(r).toMatchObject({ statusCode: 200, responseBody: 'thanks', error: null });
    expect(seen.at(-1)).toMatchObject({ path: '/ok', body: '{"a":1}' });
  });

  it('keeps the connection for the next attempt to the same origin', async () => {
    const send = local();
    await send(req('/ok'));
    await send(req('/ok'));
    const [a, b] = seen.slice(-2);
    expect(b!.socket).toBe(a!.socket);
    send.close();
  });

  it('drops the connection of a response it did not read to the end', async () => {
    const send = local();
    const closed = new Promise<void>((resolve) => server.once('request', (_req, res) => res.once('close', () => resolve())));
    expect((await send(req('/big'))).statusCode).toBe(500);
    // The receiver would stream forever; only the sender closing the connection ends it.
    await closed;
    send.close();
  });

  it('waits for a slow answer longer than the idle time of kept connections, on a new and on a kept one', async () => {
    const send = createHttpSender({
      timeoutMs: 5_000,
      allowPrivateNetworks: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      keepAliveIdleMs: 100,
    });
    expect(await send(req('/slow'))).toMatchObject({ statusCode: 200, responseBody: 'late', error: null });
    expect(await send(req('/slow'))).toMatchObject({ statusCode: 200, responseBody: 'late', error: null });
    send.close();
  });

  it('sends once more on a new connection when the receiver closed the kept one', async () => {
    const send = local();
    await send(req('/ok'));
    const r = await send(req('/reset-if-reused'));
    expect(r).toMatchObject({ statusCode: 200, responseBody: 'fresh', error: null });
    const tries = seen.filter((x) => x.path === '/reset-if-reused');
    expect(tries).toHaveLength(2);
    expect(tries[1]!.socket).not.toBe(tries[0]!.socket);
    send.close();
  });

  it('does not follow redirects: the 302 is the result and its target is never contacted', async () => {
    const before = seen.filter((s) => s.path === '/target').length;
    const r = await local()(req('/redirect'));
    expect(r.statusCode).toBe(302);
    await new Promise((res) => setTimeout(res, 100));
    expect(seen.filter((s) => s.path === '/target').length).toBe(before);
  });

  it('gives up on a receiver that hangs at the deadline', async () => {
    const t0 = Date.now();
    const r = await local({ timeoutMs: 300 })(req('/hang'));
    expect(r.statusCode).toBeNull();
    expect(r.error).toMatch(/^timeout/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(5_000); // far below the hang, with room for a loaded machine
  });

  it('reads at most 4 KiB of the response body', async () => {
    const r = await local()(req('/big'));
    expect(r.statusCode).toBe(500);
    expect(Buffer.byteLength(r.responseBody!)).toBe(4096);
  });

  it('returns Retry-After and makes bodies safe for a text column', async () => {
    expect(await local()(req('/busy'))).toMatchObject({ statusCode: 503, retryAfter: '120' });
    expect((await local()(req('/nul'))).responseBody).toBe('bad\uFFFDinput');
  });

  it('reports a refused connection without throwing', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await local()(req('/ok', `127.0.0.1:${p}`));
    expect(r.error).toMatch(/^connection_refused/);
  });

  it('refuses a forbidden IP literal before connecting', async () => {
    const n = seen.length;
    const r = await local({ allowPrivateNetworks: false })(req('/ok'));
    expect(r.error).toMatch(/^forbidden_address: .*loopback/);
    expect(seen.length).toBe(n);
  });

  it('connects to exactly the address it checked, sending the name as Host', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await local({ resolver })(req('/ok', `hooks.example.test:${port}`));
    expect(r.statusCode).toBe(200);
    expect(seen.at(-1)!.host).toBe(`hooks.example.test:${port}`);
  });

  it('refuses a name that resolves to a forbidden address at connect time (DNS rebinding)', async () => {
    const n = seen.length;
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await local({ resolver, allowPrivateNetworks: false })(req('/ok', `rebind.example.test:${port}`));
    expect(r.error).toMatch(/^forbidden_address: rebind\.example\.test resolves to 127\.0\.0\.1/);
    expect(seen.length).toBe(n);
  });

  it('refuses a name when any of its addresses is forbidden', async () => {
    const n = seen.length;
    const resolver: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const r = await local({ resolver, allowPrivateNetworks: false })(req('/ok', `mixed.example.test:${port}`));
    expect(r.error).toMatch(/^forbidden_address/);
    expect(seen.length).toBe(n);
  });
});
