import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { computeTotals } from '../../src/dte/index.ts';
import { validTenant } from '../support/app.ts';
import { describeEachDb } from '../support/db.ts';
import {
  dteBody,
  readyTenant,
  requestFolios,
  SANDBOX_API_KEY,
  startIssuingApp,
  testCertificate,
  CERT_PASSWORD,
  type IssuingApp,
} from '../support/issuing.ts';
import { certificateForm, ymd } from '../support/pfx.ts';
import { receivedFacturas } from '../support/received.ts';
import { DashboardClient } from '../web/dashboard/client.ts';

/**
 * One text policy for every free-text field (issue 30, A–C; docs/errors.md, "Text"):
 *  - what no field may hold (NUL, lone surrogates, U+FFFE, U+FFFF) is refused at the edge for
 *    every route, page and form (src/http/text-guard.ts);
 *  - text that goes into the SII's ISO-8859-1 XML outside a document (a tenant's identity and
 *    issuer data, an acceptance's glosa and recinto) follows the engine's policy before it is
 *    stored or signed, as POST …/dte does for its fields (src/lib/validate.ts `siiText`);
 *  - an engine refusal that still reaches the edge is a 400, never a 500 (src/http/plugins/errors.ts).
 * Then every free-text field the OpenAPI document lists, on a request otherwise valid so the value
 * reaches the service, the engine and the database, with hostile text: never a 5xx.
 */
const HOSTILE = [
  '\u0001start',
  'bell\u0007',
  'vt\u000b ff\u000c',
  'esc\u001b[31m',
  'del\u007f c1\u0085',
  'a\ud800b',
  'lone \udc00',
  'x\ufffe',
  'x\uffff',
  'euro € 😀',
  '’typo” – …',
  'tab\tnl\ncr\r',
  ' \u2028 ',
];
/** What must never come back from the database, echoed in a 2xx: a lone surrogate, U+FFFE/U+FFFF, or the U+FFFD it became. */
const UNSTORED = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}|[\ufffe\uffff\ufffd]/i;

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
};
interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
}
type Where = 'json' | 'form' | 'query';
interface Leaf {
  where: Where;
  path: string;
}

/** Every string a request can carry, by where and dotted path (`detalle[].nombre`). */
function requestLeaves(doc: OpenApi) {
  const resolve = (s: Schema | undefined) => (s?.$ref ? doc.components?.schemas?.[s.$ref.split('/').pop()!] : s);
  const walk = (s0: Schema | undefined, path: string, where: Where, out: Leaf[], depth = 0): void => {
    const s = resolve(s0);
    if (!s || depth > 12) return;
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(alt, path, where, out, depth + 1);
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, path ? `${path}.${k}` : k, where, out, depth + 1);
    if (s.items) walk(s.items, `${path}[]`, where, out, depth + 1);
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('string') && s.format !== 'binary' && !out.some((l) => l.path === path && l.where === where))
      out.push({ where, path });
  };
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => {
      const leaves: Leaf[] = [];
      walk(op.requestBody?.content?.['application/json']?.schema, '', 'json', leaves);
      walk(op.requestBody?.content?.['multipart/form-data']?.schema, '', 'form', leaves);
      for (const p of op.parameters ?? []) if (p.in === 'query') walk(p.schema, p.name, 'query', leaves);
      return { method: method.toUpperCase(), path, leaves };
    }),
  );
}

/** A copy of `base` with the value at `path` (`a.b[].c`: the first item of b), made as needed. */
function withValue(base: Record<string, unknown>, path: string, value: string): Record<string, unknown> {
  const copy = structuredClone(base);
  const steps = path.split('.').flatMap((p) => (p.endsWith('[]') ? [p.slice(0, -2), 0] : [p]));
  let at: Record<string | number, unknown> = copy;
  steps.forEach((step, i) => {
    if (i === steps.length - 1) {
      at[step] = value;
      return;
    }
    const nextIsIndex = typeof steps[i + 1] === 'number';
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = nextIsIndex ? [] : {};
    at = at[step] as Record<string | number, unknown>;
  });
  return copy;
}

const has = (body: Record<string, unknown>, path: string): boolean => {
  let at: unknown = body;
  for (const p of path.split('.').flatMap((x) => (x.endsWith('[]') ? [x.slice(0, -2), '0'] : [x]))) {
    if (typeof at !== 'object' || at === null || !(p in at)) return false;
    at = (at as Record<string, unknown>)[p];
  }
  return true;
};

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as any real client sends it). */
const encodeQuery = (v: string) => [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

describeEachDb('free text: one policy for every field of every route (issue 30)', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenant: string;
  let scratchTenant: string;
  let endpointId: string;
  let received: string[] = [];
  let nextReceived = 0;
  const takeReceived = () => {
    const id = received[nextReceived++];
    if (!id) throw new Error('out of received documents: raise the count in beforeAll');
    return id;
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend, {
      env: {
        SIGNUP_ENABLED: 'true',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        ACCOUNT_RATE_LIMIT_PER_SECOND: '100000',
        ACCOUNT_RATE_LIMIT_BURST: '100000',
      },
      // The SII's registro answers "registered": what is asked of it is not what this test is about.
      provider: { registerAcceptance: async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' }) },
    });
    ({ key } = await t.account('Buyer'));
    tenant = await readyTenant(t, key);
    await requestFolios(t, key, tenant, 33, 600);
    await requestFolios(t, key, tenant, 43, 100);
    await requestFolios(t, key, tenant, 110, 100);
    await requestFolios(t, key, tenant, 52, 100);
    scratchTenant = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    endpointId = (
      await t.call(key, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url: 'https://93.184.215.14/hook' } })
    ).json().id;
    received = await receivedFacturas(t, key, tenant, 22);
  }, 180_000);
  afterAll(() => t?.close());

  const accept = (id: string, body: Record<string, unknown>) =>
    t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenant}/received/${id}/acceptance`, payload: body });
  const answerXml = async (id: string, n: number) =>
    (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}/received/${id}/acceptance/${n}/xml` })).rawPayload.toString(
      'latin1',
    );
  const acciones = async (id: string) =>
    (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}/received/${id}` })).json().acciones as {
      accion: string;
      glosa: string | null;
    }[];

  it('A: an acceptance with U+FFFE/U+FFFF in glosa or recinto is a 400 naming the field; C0 controls are removed as in documents', async () => {
    const id = takeReceived();
    for (const [body, param] of [
      [{ accion: 'ACD', glosa: 'Falta\ufffe' }, 'glosa'],
      [{ accion: 'RCD', glosa: 'Falta\uffff' }, 'glosa'],
      [{ accion: 'ERM', recinto: 'Bodega\ufffe' }, 'recinto'],
      [{ accion: 'ERM', recinto: 'Bodega\uffff' }, 'recinto'],
    ] as const) {
      const r = await accept(id, body);
      expect(r.statusCode, `${JSON.stringify(body)} ${r.body}`).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'unsupported_character', param });
    }
    expect(await acciones(id)).toEqual([]);

    // U+0001, BEL, VT, FF, ESC: the engine's policy for documents removes them (TAB, LF, CR become a space).
    const acd = await accept(id, { accion: 'ACD', glosa: 'Falta\u0001 una\u0007 caja\u000b\u000c\u001b\tde\nvasos' });
    expect(acd.statusCode, acd.body).toBe(200);
    expect(acd.json().acciones).toMatchObject([{ accion: 'ACD', glosa: 'Falta una caja de vasos', registeredAtSii: true }]);
    expect(await answerXml(id, 1)).toContain(
      '<EstadoDTEGlosa>Acepta contenido del documento (ACD): Falta una caja de vasos</EstadoDTEGlosa>',
    );
    const erm = await accept(id, { accion: 'ERM', recinto: '\u001bBodega\u0007 3,\u000b Av. Matta 123' });
    expect(erm.statusCode, erm.body).toBe(200);
    expect(await answerXml(id, 2)).toContain('<Recinto>Bodega 3, Av. Matta 123</Recinto>');
  });

  it('B: an acceptance with a lone surrogate is a 400 unsupported_character, nothing is recorded or signed', async () => {
    const id = takeReceived();
    for (const [body, param] of [
      [{ accion: 'ACD', glosa: 'a\ud800b' }, 'glosa'],
      [{ accion: 'RCD', glosa: 'fin \udfff' }, 'glosa'],
      [{ accion: 'ERM', recinto: 'a\ud800b' }, 'recinto'],
      // Outside ISO-8859-1, as for documents: refused, never guessed.
      [{ accion: 'ACD', glosa: 'Mercadería dañada 📦' }, 'glosa'],
    ] as const) {
      const r = await accept(id, body);
      expect(r.statusCode, `${JSON.stringify(body)} ${r.body}`).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'unsupported_character', param });
    }
    expect(await acciones(id)).toEqual([]);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}/received/${id}` })).json().status).toBe('received');
  });

  it("C: a tenant's text follows the documents' policy before it is stored, so its documents can always be written", async () => {
    const patch = (body: Record<string, unknown>) => t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenant}`, payload: body });
    const before = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}` })).json();
    for (const [body, param] of [
      [{ razonSocial: 'Servicios\ud800 SpA' }, 'razonSocial'],
      [{ razonSocial: 'Servicios\ufffe SpA' }, 'razonSocial'],
      [{ giro: 'Software \uffff' }, 'giro'],
      [{ direccion: 'Av. 😀 123' }, 'direccion'],
      [{ comuna: 'Ñuñoa €' }, 'comuna'],
      [{ emisor: { sucursal: 'Casa ™' } }, 'emisor.sucursal'],
      [{ emisor: { unidadSii: 'ORIENTE \u2603' } }, 'emisor.unidadSii'],
    ] as const) {
      const r = await patch(body);
      expect(r.statusCode, `${JSON.stringify(body)} ${r.body}`).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'unsupported_character', param });
    }
    const create = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ razonSocial: 'Uno\ufffe' }) });
    expect(create.json().error).toMatchObject({ code: 'unsupported_character', param: 'razonSocial' });
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}` })).json()).toEqual(before);

    // VT and the other controls are removed, typography becomes Latin-1, as in a document.
    const ok = await patch({ razonSocial: 'Servicios\u000b “Ñandú”\u0007 – SpA', emisor: { vendedor: 'V\u001b-12…' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ razonSocial: 'Servicios "Ñandú" - SpA', emisor: { vendedor: 'V-12...' } });
    expect((await patch({ ciudad: '\u0007\u000b' })).json().error).toMatchObject({ code: 'invalid_field', param: 'ciudad' });
    // A document's own override of the issuer data is the request's field: 400 naming it, as the rest of the document.
    const override = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenant}/dte`,
      payload: dteBody(33, { emisor: { sucursal: 'Casa ™' } }),
    });
    expect(override.statusCode, override.body).toBe(400);
    expect(override.json().error).toMatchObject({ code: 'unsupported_character', param: 'emisor.sucursal' });
    const doc = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenant}/dte`, payload: dteBody(33) });
    expect(doc.statusCode, doc.body).toBe(201);
    const xml = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}/dte/${doc.json().id}/xml` })).rawPayload;
    expect(xml.toString('latin1')).toContain('<RznSoc>Servicios "Ñandú" - SpA</RznSoc>');
  });

  it('C: fields that never go to XML never store what is not text, and keep what they were sent otherwise', async () => {
    for (const [url, method, body, param] of [
      ['/api/v1/api-keys', 'POST', { name: 'ci\ud800' }, 'name'],
      ['/api/v1/webhooks/endpoints', 'POST', { url: 'https://93.184.215.14/h', description: 'x\uffff' }, 'description'],
      [`/api/v1/webhooks/endpoints/${endpointId}`, 'PATCH', { description: '\udc00' }, 'description'],
      ['/api/v1/account', 'PATCH', { name: 'Mi SaaS\ufffe' }, 'name'],
    ] as const) {
      const r = await t.call(key, { method, url, payload: body });
      expect(r.statusCode, `${method} ${url} ${r.body}`).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'unsupported_character', param, details: { codePoint: expect.any(Number) } });
    }
    const named = await t.call(key, { method: 'POST', url: '/api/v1/api-keys', payload: { name: 'ci € 😀\tdeploy' } });
    expect(named.statusCode, named.body).toBe(201);
    expect(named.json().name).toBe('ci € 😀\tdeploy');
  });

  it('every free-text field of every route (the OpenAPI document), on an otherwise valid request: never a 5xx', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as OpenApi;
    const ops = requestLeaves(doc).filter((op) => op.leaves.length > 0);
    const issuer = { telefono: '+56 2 2345 6789', correo: 'f@empresa.cl', sucursal: 'Casa Matriz', vendedor: 'V-12', unidadSii: 'ORIENTE' };
    const factura = dteBody(33, {
      receptor: { ...(dteBody(33).receptor as object), contacto: 'Ana', correo: 'ana@cliente.cl' },
      referencias: [{ tipoDocRef: '801', folioRef: 'OC-1', fechaRef: ymd(t.clock.now()), razonRef: 'Orden de compra' }],
      terminosPago: '30 dias',
      emisor: issuer,
    });
    (factura.detalle as Record<string, unknown>[])[0] = {
      ...(factura.detalle as Record<string, unknown>[])[0],
      unidad: 'HH',
      descripcion: 'Sprint 1',
      codigos: [{ tipo: 'INT1', valor: 'SKU-1' }],
    };
    const today = ymd(t.clock.now());
    const descuento = dteBody(33, { descuentosGlobales: [{ tipo: 'descuento', valor: 10, unidad: '%', glosa: 'Promo' }] });
    descuento.montoTotal = computeTotals(33, descuento.detalle as never, {
      descuentosGlobales: descuento.descuentosGlobales as never,
    }).montoTotal;
    const pagada = dteBody(33, { fechaVencimiento: today });
    pagada.pagos = [{ fecha: today, monto: pagada.montoTotal, glosa: 'Pago unico' }];
    const guia = dteBody(52, {
      indTraslado: 1,
      transporte: {
        patente: 'AB1234',
        rutTransportista: '76.123.456-0',
        rutChofer: '11.111.111-1',
        nombreChofer: 'Juan Soto',
        direccion: 'Calle 1',
        comuna: 'Santiago',
        ciudad: 'Santiago',
      },
    });
    const exportacion = dteBody(110);
    exportacion.exportacion = {
      ...(exportacion.exportacion as object),
      aduana: {
        nombreTransporte: 'Nave',
        rutCompaniaTransporte: '76.123.456-0',
        nombreCompaniaTransporte: 'Naviera',
        booking: 'B-1',
        operador: 'Op',
        bultos: [{ tipo: 75, cantidad: 1, marcas: 'M', idContainer: 'C-1', sello: 'S-1', emisorSello: 'Aduana' }],
      },
    };
    const dteBases = [
      descuento,
      pagada,
      guia,
      exportacion,
      factura,
      dteBody(43),
      dteBody(110, { receptor: { ...(dteBody(110).receptor as object), extranjero: { nacionalidad: '225', numeroId: 'P-1' } } }),
    ];
    const { cert, pfx } = testCertificate();
    const certFields = {
      password: CERT_PASSWORD,
      rutCertificado: '12.345.678-5',
      nombreTitular: 'Firmante de Prueba',
      fechaVencimiento: ymd(cert.notAfter),
      esPrincipal: 'false',
    };
    // A valid request per route, so the value reaches its service (JSON body, or the form's fields).
    const bases: Record<string, (leaf: Leaf) => Record<string, unknown>> = {
      'PATCH /api/v1/account': () => ({ name: 'Cuenta' }),
      'POST /api/v1/api-keys': () => ({ name: 'ci' }),
      'POST /api/v1/tenants': () => validTenant({ emisor: issuer }),
      'PATCH /api/v1/tenants/{tenantId}': () => ({}),
      'POST /api/v1/tenants/{tenantId}/credentials/certificate': () => certFields,
      'POST /api/v1/tenants/{tenantId}/credentials/api-key': () => ({ apiKey: SANDBOX_API_KEY }),
      'POST /api/v1/webhooks/endpoints/{endpointId}/test': () => ({ eventType: 'dte.status.changed' }),
      'POST /api/v1/tenants/{tenantId}/dte/{dteId}/deliveries': () => ({}),
      'POST /api/v1/webhooks/endpoints': () => ({ url: 'https://93.184.215.14/hook', description: 'd' }),
      'PATCH /api/v1/webhooks/endpoints/{endpointId}': () => ({}),
      'POST /api/v1/webhooks/messages/{messageId}/resend': () => ({ endpointId }),
      'POST /api/v1/tenants/{tenantId}/dte': (leaf) => dteBases.find((b) => has(b, leaf.path)) ?? factura,
      'POST /api/v1/tenants/{tenantId}/dte/send': () => ({ dteIds: [] }),
      'POST /api/v1/tenants/{tenantId}/received/{receivedId}/acceptance': (leaf) =>
        leaf.path === 'recinto' ? { accion: 'ERM' } : { accion: 'ACD' },
      // The set's text itself is the free text: what is not a test set is a 422, never a 5xx.
      'POST /api/v1/tenants/{tenantId}/certification/sets': () => ({}),
      // The receptor's free text of a set's documents: checked as POST …/dte checks it, never a 5xx.
      'POST /api/v1/tenants/{tenantId}/certification/sets/{setId}/documents': () => ({}),
      // A book's send takes the GET's parameters (proveedorRazonSocial the free text): never a 5xx.
      'POST /api/v1/tenants/{tenantId}/certification/sets/{setId}/books/{kind}/send': () => ({}),
      // A simulation's documents are POST …/dte bodies: the same bases, one document.
      'POST /api/v1/tenants/{tenantId}/certification/simulation': (leaf) => {
        const inner = leaf.path.replace(/^documents\[\]\./, '');
        return { documents: [dteBases.find((b) => has(b, inner)) ?? factura] };
      },
    };
    const withBody = ops.filter((op) => op.leaves.some((l) => l.where !== 'query'));
    expect(withBody.map((op) => `${op.method} ${op.path}`).filter((k) => !bases[k])).toEqual([]);

    let sent = 0;
    let ok = 0;
    const failures: string[] = [];
    for (const op of ops) {
      const key_ = `${op.method} ${op.path}`;
      // The scratch tenant takes the PATCHes and credentials: the issuing tenant stays as it is.
      const tenantFor = op.method === 'PATCH' || op.path.includes('/credentials/') ? scratchTenant : tenant;
      for (const leaf of op.leaves)
        for (const value of HOSTILE) {
          // An acceptance answers each action once: a fresh document for every glosa, its ERM for every recinto.
          const receivedId = op.path.includes('{receivedId}') && leaf.path === 'glosa' ? takeReceived() : received[nextReceived - 1];
          const url = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
            name === 'tenantId' ? tenantFor : name === 'endpointId' ? endpointId : name === 'receivedId' ? receivedId! : randomUUID(),
          );
          let r;
          if (leaf.where === 'query') {
            r = await t.call(key, { method: op.method as 'GET', url: `${url}?${leaf.path.replace(/\[\]$/, '')}=${encodeQuery(value)}` });
          } else {
            const base = bases[key_]!(leaf);
            if (leaf.where === 'form') {
              const form = certificateForm({ ...(base as Record<string, string>), [leaf.path]: value }, { data: pfx });
              r = await t.call(key, { method: op.method as 'POST', url, payload: form.payload, headers: form.headers });
            } else {
              r = await t.call(key, { method: op.method as 'POST', url, payload: withValue(base, leaf.path, value) });
            }
          }
          sent++;
          const label = `${op.method} ${op.path} ${leaf.where}:${leaf.path}=${JSON.stringify(value)} → ${r.statusCode} ${r.body.slice(0, 300)}`;
          if (r.statusCode >= 500) failures.push(label);
          else if (r.statusCode >= 400) {
            if (!/^[a-z_]+$/.test(r.json().error?.code ?? '') || !r.json().error?.requestId) failures.push(`no error envelope: ${label}`);
          } else {
            ok++;
            if (UNSTORED.test(r.body)) failures.push(`stored what is not text: ${label}`);
          }
        }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
    // Many values are accepted (cleaned, or kept where the field is not XML): the requests reached the services.
    expect(ok).toBeGreaterThan(200);
  }, 300_000);

  it('the dashboard forms follow the same policy: refused with the page, never a 500, never stored', async () => {
    const page = new DashboardClient(t.app);
    await page.signUp('Panel');
    await page.get('/tenants/new');
    const form = { ...validTenant(), numeroResolucion: '80', ambiente: 'produccion', acteco: '620200' } as Record<string, string>;
    const created = await page.post('/tenants/new', form);
    expect(created.statusCode, created.body.slice(0, 500)).toBe(303);
    const id = /\/tenants\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1]!;
    for (const field of ['razonSocial', 'giro', 'direccion', 'comuna', 'ciudad'])
      for (const value of HOSTILE) {
        await page.get(`/tenants/${id}/edit`);
        const r = await page.post(`/tenants/${id}/edit`, { ...form, [field]: value });
        expect(r.statusCode, `${field}=${JSON.stringify(value)} ${r.body.slice(0, 300)}`).toBeLessThan(500);
      }
    await page.get(`/tenants/${id}/edit`);
    const emoji = await page.post(`/tenants/${id}/edit`, { ...form, razonSocial: 'Panel 😀 SpA' });
    expect(emoji.statusCode).toBe(400);
    expect((await page.get(`/tenants/${id}`)).body).not.toContain('😀');
    for (const [url, fields] of [
      ['/settings/api-keys', { name: 'x\ufffe' }],
      ['/webhooks', { url: 'https://93.184.215.14/hook', description: 'x\uffff' }],
    ] as const) {
      await page.get(url);
      const r = await page.post(url, fields);
      expect(r.statusCode, `${url} ${r.body.slice(0, 300)}`).toBe(400);
    }
    const visitor = new DashboardClient(t.app, '198.51.100.8');
    await visitor.get('/signup');
    const signup = await visitor.post('/signup', { name: 'x\uffff', email: 'z@example.com', password: 'una clave bien larga' });
    expect(signup.statusCode, signup.body.slice(0, 300)).toBe(400);
  });
});
