// What both programs check against the live server: create and read a tenant, list with the
// iterator, a typed 404, and a webhook signature made the way the service signs (key = the
// secret string, message = the raw body).
exports.check = async ({ DteClient, DteNotFoundError, verifyWebhook, assert, crypto }) => {
  const dte = new DteClient({ baseUrl: process.env.DTE_BASE_URL, apiKey: process.env.DTE_API_KEY });
  const body = 11_000_000 + Math.floor(Math.random() * 80_000_000);
  let sum = 0;
  let factor = 2;
  for (let n = body; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const dv = 11 - (sum % 11);
  const rut = `${body}-${dv === 11 ? '0' : dv === 10 ? 'K' : dv}`;
  const tenant = await dte.post('/api/v1/tenants', {
    body: {
      rutEmpresa: rut,
      razonSocial: 'Servicios Ejemplo SpA',
      giro: 'Desarrollo de software',
      direccion: 'Av. Providencia 1234',
      comuna: 'Providencia',
      ciudad: 'Santiago',
      numeroResolucion: 0,
      fechaResolucion: '2026-11-02',
    },
  });
  const again = await dte.get('/api/v1/tenants/{tenantId}', { params: { path: { tenantId: tenant.id } } });
  assert.equal(again.id, tenant.id);
  const seen = [];
  for await (const t of dte.paginate('/api/v1/tenants', { params: { query: { limit: 1 } } })) seen.push(t.id);
  assert.ok(seen.includes(tenant.id));
  await assert.rejects(
    dte.get('/api/v1/tenants/{tenantId}', { params: { path: { tenantId: '5b1b6c1e-0000-4000-8000-000000000000' } } }),
    (e) => e instanceof DteNotFoundError && e.status === 404 && typeof e.code === 'string',
  );
  const secret = 'whsec_' + crypto.randomBytes(24).toString('base64');
  const raw = JSON.stringify({ event: 'folio.low', timestamp: new Date().toISOString(), data: { tenantId: tenant.id } });
  const signature = crypto.createHmac('sha256', secret).update(raw).digest('base64');
  assert.equal(verifyWebhook(raw, { 'webhook-signature': signature }, secret).data.tenantId, tenant.id);
  assert.throws(() => verifyWebhook(raw + ' ', { 'webhook-signature': signature }, secret));
};
