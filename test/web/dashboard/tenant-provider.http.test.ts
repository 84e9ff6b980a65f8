import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

const stringify = (o: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));

/** The tenant's provider on the dashboard: chosen on the company form, shown on its page and its credentials. */
describeEachDb('dashboard: the tenant provider', (backend) => {
  let t: TestApp;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await startTestApp(backend);
    c = new DashboardClient(t.app);
    await c.signUp('Contadores Directos');
  });
  afterAll(() => t.close());

  it('creates a direct tenant from the form, shows its path and that no API key is needed, and switches it back', async () => {
    const form = await c.get('/tenants/new');
    expect(form.body).toContain('name="provider"');
    expect(form.body).toMatch(/<option value="simpleapi" selected>/);

    const body = stringify(validTenant());
    const created = await c.post('/tenants/new', { ...body, provider: 'sii' });
    expect(created.statusCode).toBe(303);
    const url = created.headers.location as string;
    const id = url.split('/')[2]!.split('?')[0]!;
    const page = textOf((await c.get(url)).body);
    expect(page).toContain('Envío al SII');
    expect(page).toContain('Directo al SII (solo el certificado)');
    expect(page).toContain('No se necesita (envío directo al SII)');
    const stored = await t.tdb.db.query<{ provider: string }>('select provider from tenants where id = $1', [id]);
    expect(stored.rows[0]!.provider).toBe('sii');

    const credentials = textOf((await c.get(`/tenants/${id}/credentials`)).body);
    expect(credentials).toContain('No se necesita (envío directo al SII)');

    const edit = await c.get(`/tenants/${id}/edit`);
    expect(edit.body).toMatch(/<option value="sii" selected>/);
    const back = await c.post(`/tenants/${id}/edit`, { ...body, provider: 'simpleapi' });
    expect(back.statusCode).toBe(303);
    const after = textOf((await c.get(`/tenants/${id}`)).body);
    expect(after).toContain('A través de SimpleAPI (clave API y certificado)');
    expect(after).not.toContain('No se necesita (envío directo al SII)');

    // A value the form does not offer is refused, naming the field.
    await c.get('/tenants/new');
    const bad = await c.post('/tenants/new', { ...stringify(validTenant()), provider: 'otro' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('aria-invalid="true"');
  });
});
