// The SDK from TypeScript under --strict (.ci/sdk-package): the types come from the package.
import { DteApiError, DteClient, type WebhookEvent } from '@dte-service/sdk';

// The scratch project has no @types/node: the one Node.js global used here, declared.
declare const process: { env: Record<string, string | undefined> };

const dte = new DteClient({ baseUrl: process.env.DTE_BASE_URL!, apiKey: process.env.DTE_API_KEY! });
const account = await dte.get('/api/v1/account');
const name: string = account.name;
const tenants = await dte.get('/api/v1/tenants', { params: { query: { limit: 5 } } });
const firstRut: string | undefined = tenants.data[0]?.rutEmpresa;
try {
  await dte.get('/api/v1/tenants/{tenantId}', { params: { path: { tenantId: '5b1b6c1e-0000-4000-8000-000000000000' } } });
  throw new Error('expected a 404');
} catch (e) {
  if (!(e instanceof DteApiError) || e.status !== 404) throw e;
}
const describe = (event: WebhookEvent): string => (event.event === 'folio.low' ? `folio.low ${event.data.tipoDte}` : event.event);
console.log('ok (TypeScript)', name, firstRut, describe({ event: 'folio.low', timestamp: '', data: {} as never }));
