import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
// The package as users install it (its built entry), not its sources.
import { verifyWebhook, type WebhookEvent } from '@dte-service/sdk';

/**
 * verifyWebhook with the raw body each common server hands a handler (packages/sdk/README.md,
 * "Webhooks"): node:http chunks, Express's express.raw(), a Fastify buffer parser, and a fetch
 * Request as Next.js route handlers, Deno, Bun and Workers get it. Each server answers 204 when
 * the signature holds and 400 when it does not; the deliveries are signed the way the service
 * signs (key = the whole secret string, message = the raw body) and sent over real sockets, with
 * non-ASCII text so a body re-encoded on the way would fail.
 */
const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
const raw = JSON.stringify({ event: 'folio.low', timestamp: '2026-11-28T12:00:00Z', data: { razonSocial: 'Compañía Ñandú' } });
const sign = (body: string) => crypto.createHmac('sha256', secret).update(body).digest('base64');

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const listen = async (server: http.Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
};

/** A good delivery (204) and a tampered one (400) to `url`. */
const deliver = async (url: string) => {
  const send = (body: string, signature: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-signature': signature }, body });
  expect((await send(raw, sign(raw))).status).toBe(204);
  expect((await send(raw.replace('Ñandú', 'Nandu'), sign(raw))).status).toBe(400);
};

const check = (body: string | Uint8Array, headers: Parameters<typeof verifyWebhook>[1]): boolean => {
  try {
    const event = verifyWebhook<WebhookEvent>(body, headers, secret);
    return event.event === 'folio.low';
  } catch {
    return false;
  }
};

describe('verifyWebhook with the raw body of each server', () => {
  it('node:http: the concatenated chunks', async () => {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.statusCode = check(Buffer.concat(chunks), req.headers) ? 204 : 400;
        res.end();
      });
    });
    await deliver(await listen(server));
  });

  it("Express: express.raw({ type: 'application/json' })", async () => {
    const app = express();
    app.post('/hook', express.raw({ type: 'application/json' }), (req, res) => {
      res.status(check(req.body as Buffer, req.headers) ? 204 : 400).end();
    });
    await deliver(await listen(http.createServer(app)));
  });

  it("Fastify: a content-type parser with parseAs: 'buffer'", async () => {
    const app = Fastify();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/hook', async (req, reply) => reply.status(check(req.body as Buffer, req.headers) ? 204 : 400).send());
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    await deliver(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/hook`);
  });

  it('a fetch Request (Next.js route handlers, Deno, Bun, Workers): request.text() and request.headers', async () => {
    // A Next.js App Router handler has exactly this shape: (request: Request) => Response.
    const POST = async (request: Request) => new Response(null, { status: check(await request.text(), request.headers) ? 204 : 400 });
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const response = await POST(new Request(`http://localhost${req.url}`, { method: 'POST', headers, body: Buffer.concat(chunks) }));
      res.statusCode = response.status;
      res.end();
    });
    await deliver(await listen(server));
  });
});
