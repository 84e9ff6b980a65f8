import { expect, it } from 'vitest';
import { createMetrics, statusClass } from './metrics.ts';

it('status classes, and a null status (no answer) as error', () => {
  expect([200, 302, 404, 429, 503, null].map(statusClass)).toEqual(['2xx', '3xx', '4xx', '4xx', '5xx', 'error']);
});

it('counts through the observers and reads the scrape-time sources once per scrape', async () => {
  let queueReads = 0;
  const m = createMetrics({
    queueStats: async () => (queueReads++, [{ queue: 'dte.send', depth: 3, oldestReadySeconds: 12.5 }]),
    folioStock: async () => [{ tenantId: '0b0e7d3c-2f4a-4c55-9d1e-6a7b8c9d0e1f', tipoDte: 39, left: 0 }],
  });
  m.observeHttp('GET', '/api/v1/tenants/:tenantId', 200, 0.01);
  m.webhooks.deliveryFinished('retrying');
  m.provider.call('servicios', '/api/folios/get/:n/:n', 429);
  const { body, contentType } = await m.scrape();
  expect(contentType).toMatch(/^text\/plain/);
  expect(queueReads).toBe(1);
  expect(body).toContain('dte_http_request_duration_seconds_count{method="GET",route="/api/v1/tenants/:tenantId",status_class="2xx"} 1');
  expect(body).toContain('dte_jobs_queue_depth{queue="dte.send"} 3');
  expect(body).toContain('dte_jobs_oldest_ready_age_seconds{queue="dte.send"} 12.5');
  expect(body).toContain('dte_folios_left{tenant_id="0b0e7d3c-2f4a-4c55-9d1e-6a7b8c9d0e1f",tipo_dte="39"} 0');
  expect(body).toContain('dte_webhook_deliveries_total{outcome="retrying"} 1');
  expect(body).toContain('dte_provider_calls_total{host="servicios",operation="/api/folios/get/:n/:n",status_class="4xx"} 1');
  expect(body).toContain('dte_provider_rate_limited_total{host="servicios",operation="/api/folios/get/:n/:n"} 1');
});

it('a source that fails leaves its series out and counts the failure; the scrape still answers', async () => {
  let calls = 0;
  const m = createMetrics({
    queueStats: async () => {
      if (calls++ > 0) throw new Error('PGlite is closed');
      return [{ queue: 'q', depth: 1, oldestReadySeconds: 0 }];
    },
    folioStock: async () => {
      throw new Error('connection refused');
    },
  });
  expect((await m.scrape()).body).toContain('dte_jobs_queue_depth{queue="q"} 1');
  await m.scrape();
  // A failure is counted while its scrape runs, so the next scrape shows it.
  const { body } = await m.scrape();
  expect(body).not.toContain('dte_jobs_queue_depth{');
  expect(body).toMatch(/dte_metrics_collect_errors_total\{collector="folios"\} [1-9]/);
  expect(body).toMatch(/dte_metrics_collect_errors_total\{collector="jobs"\} [1-9]/);
  expect(body).not.toContain('PGlite');
});
