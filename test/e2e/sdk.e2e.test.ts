import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DteApiError,
  DteClient,
  DteConflictError,
  DteInvalidRequestError,
  DteNotFoundError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '@dte-service/sdk';
import { validTenant } from '../support/app.ts';
import { backends, type Backend } from '../support/db.ts';
import { createAccountViaCli, scratchDatabase, startServer, type ServerProc } from '../support/processes.ts';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The SDK (packages/sdk, imported by its package name as a user would) against the real service in
 * its own process, over HTTP: on the embedded database, and on PostgreSQL when TEST_DATABASE_URL is
 * set. Typed calls, the pagination iterator, errors as typed exceptions, idempotent retries (one
 * whose first response is lost on the way back), and webhooks delivered by the service's worker to
 * local receivers, checked with verifyWebhook for both signature schemes.
 */

interface Exchange {
  method: string;
  url: string;
  idempotencyKey: string | null;
  status: number | undefined;
  replayed: string | null;
}

for (const backend of backends()) {
  describe(`TypeScript SDK against a live server [${backend}]`, () => {
    let server: ServerProc;
    let drop: (() => Promise<void>) | undefined;
    let dte: DteClient;
    const log: Exchange[] = [];
    /** Set to make the next matching request reach the server but lose its response (a dropped connection). */
    let loseNextResponse: ((req: Request) => boolean) | undefined;

    beforeAll(async () => {
      let env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
      if ((backend as Backend) === 'postgres') {
        const db = await scratchDatabase();
        drop = db.drop;
        env = { ...env, ...db.env };
      }
      server = await startServer(env);
      const apiKey = await createAccountViaCli(server.env);
      dte = new DteClient({
        baseUrl: server.url,
        apiKey,
        // The global fetch, watched: what went out, what came back.
        fetch: async (input, init) => {
          const req = new Request(input, init);
          const entry: Exchange = {
            method: req.method,
            url: new URL(req.url).pathname + new URL(req.url).search,
            idempotencyKey: req.headers.get('idempotency-key'),
            status: undefined,
            replayed: null,
          };
          log.push(entry);
          const res = await fetch(req);
          entry.status = res.status;
          entry.replayed = res.headers.get('idempotent-replayed');
          if (loseNextResponse?.(req)) {
            loseNextResponse = undefined;
            await res.body?.cancel();
            throw new TypeError('fetch failed: socket hang up');
          }
          return res;
        },
      });
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      await drop?.();
    });

    it('reads the account and creates tenants with typed bodies; POSTs carry a generated Idempotency-Key', async () => {
      const account = await dte.get('/api/v1/account');
      expect(account.name).toBe('E2E SaaS');
      const tenant = await dte.post('/api/v1/tenants', { body: validTenant({ ambiente: 'certificacion' }) });
      expect(tenant.status).toBe('pending_credentials');
      const post = log.findLast((e) => e.method === 'POST')!;
      expect(post.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      const read = await dte.get('/api/v1/tenants/{tenantId}', { params: { path: { tenantId: tenant.id } } });
      expect(read.rutEmpresa).toBe(tenant.rutEmpresa);
      const patched = await dte.patch('/api/v1/tenants/{tenantId}', {
        params: { path: { tenantId: tenant.id } },
        body: { email: 'facturacion@ejemplo.cl' },
      });
      expect(patched.email).toBe('facturacion@ejemplo.cl');
    });

    it('paginate() walks every page of a list until done', async () => {
      const created = new Set<string>();
      for (let i = 0; i < 4; i++) created.add((await dte.post('/api/v1/tenants', { body: validTenant() })).id);
      const before = log.length;
      const seen: string[] = [];
      for await (const t of dte.paginate('/api/v1/tenants', { params: { query: { limit: 2 } } })) seen.push(t.id);
      const pages = log.slice(before);
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(pages[0]!.url).toBe('/api/v1/tenants?limit=2');
      expect(pages[1]!.url).toMatch(/^\/api\/v1\/tenants\?limit=2&iterator=/);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of created) expect(seen).toContain(id);
      // Breaking out early stops fetching.
      const early = log.length;
      for await (const _ of dte.paginate('/api/v1/tenants', { params: { query: { limit: 2 } } })) break;
      expect(log.length - early).toBe(1);
    });

    it('throws typed errors carrying code, param, status and requestId', async () => {
      const missing = crypto.randomUUID();
      const notFound = await dte.get('/api/v1/tenants/{tenantId}', { params: { path: { tenantId: missing } } }).catch((e: unknown) => e);
      expect(notFound).toBeInstanceOf(DteNotFoundError);
      const nf = notFound as DteNotFoundError;
      expect(nf.status).toBe(404);
      expect(nf.code).toBe('tenant_not_found');
      expect(nf.requestId).toBeTruthy();
      expect(nf.requestId).toBe(nf.headers?.get('request-id'));

      const bad = await dte.post('/api/v1/tenants', { body: validTenant({ rutEmpresa: '76.192.083-1' }) }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(DteInvalidRequestError);
      expect((bad as DteInvalidRequestError).code).toBe('invalid_rut');
      expect((bad as DteInvalidRequestError).param).toBe('rutEmpresa');
      expect((bad as DteInvalidRequestError).message).toContain('check digit');
    });

    it('an Idempotency-Key makes a retried POST answer the first result; a different body with it is a conflict', async () => {
      const body = validTenant();
      const key = `sdk-${crypto.randomUUID()}`;
      const first = await dte.post('/api/v1/tenants', { body, idempotencyKey: key });
      const again = await dte.post('/api/v1/tenants', { body, idempotencyKey: key });
      expect(again.id).toBe(first.id);
      expect(log.findLast((e) => e.method === 'POST')!.replayed).toBe('true');
      const conflict = await dte
        .post('/api/v1/tenants', { body: { ...body, giro: 'Otro giro' }, idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(DteConflictError);
      expect((conflict as DteConflictError).code).toBe('idempotency_key_reused');
    });

    it('a POST whose response is lost is retried by the client with the same generated key: one tenant, not two', async () => {
      const body = validTenant();
      loseNextResponse = (req) => req.method === 'POST' && new URL(req.url).pathname === '/api/v1/tenants';
      const before = log.length;
      const tenant = await dte.post('/api/v1/tenants', { body });
      const attempts = log.slice(before).filter((e) => e.method === 'POST');
      expect(attempts).toHaveLength(2);
      expect(attempts[0]!.status).toBe(201); // the server did create it; the answer was lost
      expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
      expect(attempts[1]!.replayed).toBe('true');
      const same: string[] = [];
      for await (const t of dte.paginate('/api/v1/tenants', { params: { query: { limit: 100 } } })) {
        if (t.rutEmpresa === body.rutEmpresa) same.push(t.id);
      }
      expect(same).toEqual([tenant.id]);
    });

    it('sends raw XML bytes as the reference sample does (bodySerializer and content-type), and they arrive untouched', async () => {
      const tenant = await dte.post('/api/v1/tenants', { body: validTenant() });
      // A DOCTYPE is refused by name only if the server read the bytes as XML (not JSON of a Buffer).
      const xml = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE EnvioDTE>\n<EnvioDTE/>', 'latin1');
      const refused = await dte
        .post('/api/v1/tenants/{tenantId}/received', {
          params: { path: { tenantId: tenant.id } },
          body: xml,
          bodySerializer: (bytes) => bytes,
          headers: { 'content-type': 'application/xml' },
        })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DteApiError);
      expect((refused as DteApiError).code).toBe('xml_doctype_forbidden');
    });

    describe('webhooks delivered by the service, verified with verifyWebhook', () => {
      const receivers: WebhookReceiver[] = [];
      afterAll(async () => {
        for (const r of receivers) await r.close();
      });
      const headersOf = (d: ReceivedDelivery) => ({
        'content-type': d.contentType,
        'webhook-id': d.webhookId,
        'webhook-timestamp': d.timestamp,
        'webhook-signature': d.signature,
      });

      for (const scheme of ['hmac-sha256-body', 'standard-webhooks'] as const) {
        it(`${scheme}: a test event arrives, verifies with the endpoint's secret, and fails with another`, async () => {
          const receiver = await startWebhookReceiver({ scheme });
          receivers.push(receiver);
          const endpoint = await dte.post('/api/v1/webhooks/endpoints', {
            body: { url: receiver.url, filterTypes: ['folio.low'], ...(scheme === 'standard-webhooks' ? { signatureScheme: scheme } : {}) },
          });
          expect(endpoint.signatureScheme).toBe(scheme);
          expect(endpoint.secret).toMatch(/^whsec_/);
          receiver.secret = endpoint.secret;
          await dte.post('/api/v1/webhooks/endpoints/{endpointId}/test', {
            params: { path: { endpointId: endpoint.id } },
            body: { eventType: 'folio.low' },
          });
          await receiver.waitForCount(1, 60_000);
          const d = receiver.deliveries[0]!;
          expect(d.verified, d.problem).toBe(true); // the receiver's own, independent check agrees

          const event = verifyWebhook<WebhookEvent>(d.body, headersOf(d), endpoint.secret, { scheme });
          expect(event.event).toBe('folio.low');
          if (event.event === 'folio.low') expect(typeof event.data.disponibles).toBe('number');
          // Unpinned, the scheme is read from the header's shape.
          expect(verifyWebhook(d.body, headersOf(d), endpoint.secret).event).toBe('folio.low');
          // Another secret, or the other scheme, is refused.
          expect(() => verifyWebhook(d.body, headersOf(d), `whsec_${crypto.randomBytes(32).toString('base64')}`)).toThrow(
            WebhookVerificationError,
          );
          const other = scheme === 'standard-webhooks' ? 'hmac-sha256-body' : 'standard-webhooks';
          expect(() => verifyWebhook(d.body, headersOf(d), endpoint.secret, { scheme: other })).toThrow(WebhookVerificationError);

          const deleted = await dte.delete('/api/v1/webhooks/endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } } });
          expect(deleted).toBeUndefined();
        }, 90_000);
      }
    });
  });
}
