import { certificateForm } from './pfx.ts';
import { dteBody, readyTenant, requestFolios, testCertificate, waitFinal } from './issuing.ts';
import { receivedFacturas } from './received.ts';
import type { TestApp } from './app.ts';

/**
 * The isolation suites (test/http/cross-account.http.test.ts across accounts,
 * test/http/cross-mode.http.test.ts across test and live mode): an owner key makes a real resource
 * for every path parameter of the API, and another key asks for each on every route.
 */
export type Ids = Record<string, string>;

/** A test set small enough to read at a glance (docs/certification.md). */
export const CERTIFICATION_SET =
  'SET BASICO - NUMERO DE ATENCION: 1\nCASO 1-1\n====\nDOCUMENTO\tFACTURA ELECTRONICA\nITEM\t\tCANTIDAD\tPRECIO UNITARIO\nUno\t\t1\t\t1000\n';

/** A real resource of the owner key for every path parameter. */
export async function ownedResources(t: TestApp, ownerKey: string): Promise<Ids> {
  const ids: Ids = {};
  const call = async (method: string, url: string, payload?: unknown) => {
    const r = await t.call(ownerKey, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json();
  };
  const tenantId = await readyTenant(t, ownerKey);
  ids.tenantId = tenantId;
  ids.id = (await call('POST', '/api/v1/api-keys', { name: 'for isolation' })).id;
  ids.certificateId = (await call('GET', `/api/v1/tenants/${tenantId}/credentials/status`)).certificates[0].id;
  ids.endpointId = (await call('POST', '/api/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/dte' })).id;
  await call('POST', `/api/v1/webhooks/endpoints/${ids.endpointId}/test`, {});
  ids.requestId = (await requestFolios(t, ownerKey, tenantId, 33, 5)).id;
  ids.tipoDte = '33';
  const dte = await call('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(33, {}, t.clock.now()));
  ids.dteId = dte.id;
  ids.envioId = (await call('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: [dte.id] })).envios[0].id;
  await waitFinal(t, ownerKey, dte.id);
  ids.messageId = (await call('GET', '/api/v1/webhooks/messages')).data[0].id;
  const [receivedId] = await receivedFacturas(t, ownerKey, tenantId, 1);
  ids.receivedId = receivedId!;
  ids.receivedEnvioId = (await call('GET', `/api/v1/tenants/${tenantId}/received/${receivedId}`)).envioId;
  // The supplier never sent it to the SII, which refuses to register the action (code 9); the
  // acceptance is kept as refused all the same, as number 1.
  await t.call(ownerKey, {
    method: 'POST',
    url: `/api/v1/tenants/${tenantId}/received/${receivedId}/acceptance`,
    payload: { accion: 'ACD' },
  });
  ids.n = '1';
  ids.setId = (await call('POST', `/api/v1/tenants/${tenantId}/certification/sets`, { text: CERTIFICATION_SET })).id;
  ids.kind = 'compras';
  // A simulation run (made in a certification tenant: a simulation is made in certification).
  const certTenant = await readyTenant(t, ownerKey, { ambiente: 'certificacion' });
  await requestFolios(t, ownerKey, certTenant, 33, 1);
  ids.simulationId = (
    await call('POST', `/api/v1/tenants/${certTenant}/certification/simulation`, { documents: [dteBody(33, {}, t.clock.now())] })
  ).id;
  return ids;
}

/** Every route of the API with a path parameter, read from the OpenAPI document. */
export async function routesWithParams(t: TestApp): Promise<{ method: string; path: string }[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/') && path.includes('{'))
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
}

/** The owner's id for each parameter (`envioId` under received/ is a received envío). */
export const fillPath = (ids: Ids, path: string) =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const key = name === 'envioId' && path.includes('/received/') ? 'receivedEnvioId' : name;
    if (!ids[key]) throw new Error(`no id of the owner for {${name}} in ${path}: give it one in beforeAll`);
    return ids[key]!;
  });

/** A body each route accepts (valid for its schema), so only the lookup can refuse it. */
export const bodyFor = (
  t: TestApp,
  ids: Ids,
  logo: Buffer,
  method: string,
  path: string,
): { payload?: Buffer | object; headers?: Record<string, string> } | undefined => {
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

/** The routes where `otherKey` is not refused with a 404 `…_not_found`: never 400, 403 or 2xx. */
export async function notRefused(t: TestApp, otherKey: string, ids: Ids, logo: Buffer, routes: { method: string; path: string }[]) {
  const wrong: string[] = [];
  for (const { method, path } of routes) {
    const body = bodyFor(t, ids, logo, method, path);
    if (!body) {
      wrong.push(`${method} ${path}: no body given for this route (add one to bodyFor)`);
      continue;
    }
    const r = await t.call(otherKey, { method: method as 'GET', url: fillPath(ids, path), ...body });
    const code = r.headers['content-type']?.toString().includes('json')
      ? (r.json() as { error?: { code?: string } }).error?.code
      : undefined;
    if (r.statusCode !== 404 || !/_not_found$/.test(code ?? ''))
      wrong.push(`${method} ${path}: ${r.statusCode} ${code ?? r.body.slice(0, 80)}`);
  }
  return wrong;
}
