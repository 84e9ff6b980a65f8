import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { certificateForm } from '../support/pfx.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, testCertificate, waitFinal, type IssuingApp } from '../support/issuing.ts';
import { receivedFacturas } from '../support/received.ts';
import { zeroPng } from '../support/zero-png.ts';

/** A test set small enough to read at a glance (docs/certification.md). */
const CERTIFICATION_SET =
  'SET BASICO - NUMERO DE ATENCION: 1\nCASO 1-1\n====\nDOCUMENTO\tFACTURA ELECTRONICA\nITEM\t\tCANTIDAD\tPRECIO UNITARIO\nUno\t\t1\t\t1000\n';

/**
 * Account isolation on every route with a path parameter, read from the OpenAPI document (a route
 * added later is covered, or this test fails until it is given a body): account A owns a real
 * resource for every parameter (tenant, certificate, API key, webhook endpoint and message, folio
 * request, DTE, envío, received document and envío, acceptance), and account B asks for each with
 * a body the route accepts. The only right answer is 404 with a `…_not_found` code: never 400
 * (which would mean the id was never looked up), never 403, never 2xx.
 */
describeEachDb('cross-account isolation (real ids, every route)', (backend) => {
  let t: IssuingApp;
  let b: { key: string };
  const ids: Record<string, string> = {};
  let routes: { method: string; path: string }[];
  let logo: Buffer;

  beforeAll(async () => {
    t = await startIssuingApp(backend, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    logo = await zeroPng({ width: 8, height: 8 });
    const a = await t.account('A');
    b = await t.account('B');
    const call = async (method: string, url: string, payload?: unknown) => {
      const r = await t.call(a.key, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) });
      if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
      return r.json();
    };
    const tenantId = await readyTenant(t, a.key);
    ids.tenantId = tenantId;
    ids.id = (await t.ctx.services.apiKeys.create(a.accountId, { name: 'for isolation' })).id;
    ids.certificateId = (await call('GET', `/api/v1/tenants/${tenantId}/credentials/status`)).certificates[0].id;
    ids.endpointId = (await call('POST', '/api/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/dte' })).id;
    await call('POST', `/api/v1/webhooks/endpoints/${ids.endpointId}/test`, {});
    ids.requestId = (await requestFolios(t, a.key, tenantId, 33, 5)).id;
    ids.tipoDte = '33';
    const dte = await call('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(33, {}, t.clock.now()));
    ids.dteId = dte.id;
    ids.envioId = (await call('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: [dte.id] })).envios[0].id;
    await waitFinal(t, a.key, dte.id);
    ids.messageId = (await call('GET', '/api/v1/webhooks/messages')).data[0].id;
    const [receivedId] = await receivedFacturas(t, a.key, tenantId, 1);
    ids.receivedId = receivedId!;
    ids.receivedEnvioId = (await call('GET', `/api/v1/tenants/${tenantId}/received/${receivedId}`)).envioId;
    // The supplier never sent it to the SII, which refuses to register the action (code 9); the
    // acceptance is kept as refused all the same, as number 1.
    await t.call(a.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/received/${receivedId}/acceptance`,
      payload: { accion: 'ACD' },
    });
    ids.n = '1';
    ids.setId = (await call('POST', `/api/v1/tenants/${tenantId}/certification/sets`, { text: CERTIFICATION_SET })).id;
    ids.kind = 'compras';
    // A simulation run of account A (its certification tenant: a simulation is made in certification).
    const certTenant = await readyTenant(t, a.key, { ambiente: 'certificacion' });
    await requestFolios(t, a.key, certTenant, 33, 1);
    ids.simulationId = (
      await call('POST', `/api/v1/tenants/${certTenant}/certification/simulation`, { documents: [dteBody(33, {}, t.clock.now())] })
    ).id;
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/') && path.includes('{'))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  }, 180_000);
  afterAll(() => t?.close());

  /** Account A's id for each parameter (`envioId` under received/ is a received envío). */
  const fill = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const key = name === 'envioId' && path.includes('/received/') ? 'receivedEnvioId' : name;
      if (!ids[key]) throw new Error(`no id of account A for {${name}} in ${path}: give it one in beforeAll`);
      return ids[key]!;
    });

  /** A body each route accepts (valid for its schema), so only the lookup can refuse it. */
  const bodyFor = (method: string, path: string): { payload?: Buffer | object; headers?: Record<string, string> } | undefined => {
    const key = `${method} ${path}`;
    const form = (fields: Record<string, string>, data: Buffer, filename: string) => certificateForm(fields, { data, filename });
    switch (key) {
      case 'PATCH /api/v1/tenants/{tenantId}':
        return { payload: { giro: 'Servicios de prueba' } };
      case 'PUT /api/v1/tenants/{tenantId}/logo':
        return { payload: logo, headers: { 'content-type': 'image/png' } };
      case 'POST /api/v1/tenants/{tenantId}/activation-link':
        return { payload: {} };
      case 'POST /api/v1/tenants/{tenantId}/certification/sets/{setId}/books/{kind}/send':
        return { payload: {} };
      case 'POST /api/v1/tenants/{tenantId}/credentials/api-key':
        return { payload: { apiKey: 'sandbox-ok-key-0001' } };
      case 'POST /api/v1/tenants/{tenantId}/credentials/certificate': {
        const f = form({ password: 'Clave-Firma-1', rutCertificado: '12.345.678-5' }, testCertificate().pfx, 'cert.pfx');
        return { payload: f.payload, headers: f.headers };
      }
      case 'PATCH /api/v1/tenants/{tenantId}/credentials/certificates/{certificateId}':
        return { payload: { esPrincipal: true } };
      case 'PATCH /api/v1/webhooks/endpoints/{endpointId}':
        return { payload: { description: 'x' } };
      case 'POST /api/v1/webhooks/endpoints/{endpointId}/secret/rotate':
      case 'POST /api/v1/webhooks/endpoints/{endpointId}/test':
        return { payload: {} };
      case 'POST /api/v1/webhooks/messages/{messageId}/resend':
        return { payload: { endpointId: ids.endpointId } };
      case 'POST /api/v1/tenants/{tenantId}/folios/request':
        return { payload: { tipoDte: 33, cantidad: 5 } };
      case 'POST /api/v1/tenants/{tenantId}/folios/caf': {
        const f = form({}, Buffer.from('<AUTORIZACION/>'), 'caf.xml');
        return { payload: f.payload, headers: f.headers };
      }
      case 'PATCH /api/v1/tenants/{tenantId}/folios/{tipoDte}':
        return { payload: { lowThreshold: 3 } };
      case 'POST /api/v1/tenants/{tenantId}/dte':
        return { payload: dteBody(33, {}, t.clock.now()) };
      case 'POST /api/v1/tenants/{tenantId}/dte/send':
        return { payload: { dteIds: [ids.dteId] } };
      case 'POST /api/v1/tenants/{tenantId}/received':
        return { payload: Buffer.from('<EnvioDTE/>'), headers: { 'content-type': 'application/xml' } };
      case 'POST /api/v1/tenants/{tenantId}/received/{receivedId}/acceptance':
        return { payload: { accion: 'ACD' } };
      case 'POST /api/v1/tenants/{tenantId}/dte/{dteId}/deliveries':
        return { payload: { to: 'buyer@example.com' } };
      case 'POST /api/v1/tenants/{tenantId}/certification/sets':
        return { payload: Buffer.from(CERTIFICATION_SET, 'latin1'), headers: { 'content-type': 'text/plain; charset=ISO-8859-1' } };
      case 'POST /api/v1/tenants/{tenantId}/certification/sets/{setId}/documents':
        return { payload: {} };
      case 'POST /api/v1/tenants/{tenantId}/certification/sets/{setId}/send':
      case 'POST /api/v1/tenants/{tenantId}/certification/simulation/{simulationId}/send':
        return {};
      case 'POST /api/v1/tenants/{tenantId}/certification/simulation':
        return { payload: { documents: [dteBody(33, {}, t.clock.now())] } };
      case 'POST /api/v1/tenants/{tenantId}/certification/exchange':
        return { payload: Buffer.from('<EnvioDTE/>'), headers: { 'content-type': 'application/xml' } };
      default:
        return method === 'POST' || method === 'PATCH' || method === 'PUT' ? undefined : {};
    }
  };

  it("answers 404 to another account's real ids on every route with a path parameter", async () => {
    expect(routes.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      const body = bodyFor(method, path);
      if (!body) {
        wrong.push(`${method} ${path}: no body given for this route (add one to bodyFor)`);
        continue;
      }
      const r = await t.call(b.key, { method: method as 'GET', url: fill(path), ...body });
      const code = r.headers['content-type']?.toString().includes('json')
        ? (r.json() as { error?: { code?: string } }).error?.code
        : undefined;
      if (r.statusCode !== 404 || !/_not_found$/.test(code ?? ''))
        wrong.push(`${method} ${path}: ${r.statusCode} ${code ?? r.body.slice(0, 80)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("leaves account A's resources as they were", async () => {
    // Every refusal above was a lookup, not a change: A's DTE and endpoint are intact.
    const a = await t.call(b.key, { method: 'GET', url: `/api/v1/tenants/${ids.tenantId}/dte/${ids.dteId}` });
    expect(a.statusCode).toBe(404);
    const rows = await t.ctx.db.query<{ n: string }>('select count(*)::text as n from webhook_endpoints where id = $1', [ids.endpointId]);
    expect(rows.rows[0]!.n).toBe('1');
  });
});
