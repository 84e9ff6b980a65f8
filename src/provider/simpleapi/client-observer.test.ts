import { expect, it } from 'vitest';
import { createSimpleApiClient, operationOf } from './client.ts';

it('names an operation by its path with the numbers taken out', () => {
  expect(operationOf('/api/folios/get/33/10')).toBe('/api/folios/get/:n/:n');
  expect(operationOf('/api/folios/get/39/')).toBe('/api/folios/get/:n/');
  expect(operationOf('/api/v1/envio/enviar')).toBe('/api/v1/envio/enviar');
});

it('tells the observer of every attempt: its host, operation and status, null when no answer came', async () => {
  const seen: [string, string, number | null][] = [];
  let n = 0;
  const client = createSimpleApiClient({
    apiBaseUrl: 'http://api.invalid',
    serviciosBaseUrl: 'http://servicios.invalid',
    timeoutMs: 1000,
    retries: 2,
    backoffBaseMs: 1,
    observer: { call: (host, operation, status) => void seen.push([host, operation, status]) },
    fetch: async () => {
      n++;
      if (n === 1) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      if (n === 2) return new Response('busy', { status: 503 });
      return new Response('[]', { status: 200 });
    },
  });
  await client.request({ host: 'api', method: 'GET', path: '/api/v1/suscripcion/status', apiKey: 'k-123456789', idempotent: true });
  expect(seen).toEqual([
    ['api', '/api/v1/suscripcion/status', null],
    ['api', '/api/v1/suscripcion/status', 503],
    ['api', '/api/v1/suscripcion/status', 200],
  ]);
});
