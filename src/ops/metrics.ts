import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics (docs/operations.md), one registry per context: no global
 * registry, so several apps in one process (tests, the bench) never share counters.
 *
 * Label rule: only values from small, closed sets or opaque ids the operator already has — HTTP
 * method, a route *pattern* (`/api/v1/tenants/:tenantId`, never the raw URL, which can carry ids or
 * activation tokens), a status class, a queue name, a provider host and operation, a tenant UUID
 * and a document type. Never a RUT, a name, an e-mail address, an API key prefix or a secret.
 *
 * Modules do not import this file: the webhook delivery worker and the provider client declare the
 * small observer interfaces they call, and the composition root hands them these implementations.
 */
export interface QueueStat {
  queue: string;
  /** Jobs pending or running. */
  depth: number;
  /** Seconds since the oldest job that is due (pending, run_at passed) became due; 0 when none. */
  oldestReadySeconds: number;
}

export interface FolioStock {
  tenantId: string;
  tipoDte: number;
  left: number;
}

export interface MetricsSources {
  /** Read at scrape time (src/jobs/queue.ts). */
  queueStats(): Promise<QueueStat[]>;
  /** Read at scrape time, one query (src/modules/folios). */
  folioStock(): Promise<FolioStock[]>;
}

/** Outcome of one recorded webhook attempt or an abandoned delivery. */
export type WebhookOutcome = 'succeeded' | 'retrying' | 'failed' | 'gone' | 'abandoned';

export const statusClass = (status: number | null): string => (status === null ? 'error' : `${Math.floor(status / 100)}xx`);

export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const collectErrors = new Counter({
    name: 'dte_metrics_collect_errors_total',
    help: 'Scrape-time collectors that could not read the database (their series are left out of that scrape).',
    labelNames: ['collector'],
    registers: [registry],
  });
  /** A failed read leaves the gauge empty for this scrape (never last scrape's values as if current). */
  const guarded = async (collector: string, gauge: Gauge, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch {
      gauge.reset();
      collectErrors.inc({ collector });
    }
  };

  const httpDuration = new Histogram({
    name: 'dte_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status class.',
    labelNames: ['method', 'route', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // Both queue gauges come from one query per scrape: the registry collects metrics concurrently,
  // so the two collectors share the read in flight.
  const seenQueues = new Set<string>();
  let queueRead: Promise<Map<string, QueueStat>> | undefined;
  const readQueues = () =>
    (queueRead ??= sources
      .queueStats()
      .then((stats) => {
        // Queues seen once keep reporting (0) after they empty, so a graph drops to zero instead of stopping.
        for (const s of stats) seenQueues.add(s.queue);
        return new Map(stats.map((s) => [s.queue, s]));
      })
      .finally(() => (queueRead = undefined)));
  const queueGauge = (name: string, help: string, value: (s: QueueStat | undefined) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        await guarded('jobs', this, async () => {
          const byQueue = await readQueues();
          this.reset();
          for (const q of seenQueues) this.set({ queue: q }, value(byQueue.get(q)));
        });
      },
    });
  queueGauge('dte_jobs_queue_depth', 'Jobs pending or running, by queue.', (s) => s?.depth ?? 0);
  queueGauge(
    'dte_jobs_oldest_ready_age_seconds',
    'Age of the oldest job that is due but not yet claimed, by queue (0 when none waits).',
    (s) => s?.oldestReadySeconds ?? 0,
  );

  new Gauge({
    name: 'dte_folios_left',
    help: 'Folios that can still be handed out, by tenant id and document type (0 once a type with CAFs runs out).',
    labelNames: ['tenant_id', 'tipo_dte'],
    registers: [registry],
    async collect() {
      await guarded('folios', this, async () => {
        const rows = await sources.folioStock();
        this.reset();
        for (const r of rows) this.set({ tenant_id: r.tenantId, tipo_dte: String(r.tipoDte) }, r.left);
      });
    },
  });

  const webhookOutcomes = new Counter({
    name: 'dte_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, will retry), failed (no attempt left), gone (410, endpoint disabled), abandoned (endpoint deleted or disabled).',
    labelNames: ['outcome'],
    registers: [registry],
  });

  const providerCalls = new Counter({
    name: 'dte_provider_calls_total',
    help: 'HTTP calls to the billing provider by host, operation and status class (error: no answer).',
    labelNames: ['host', 'operation', 'status_class'],
    registers: [registry],
  });
  const siiCalls = new Counter({
    name: 'dte_sii_calls_total',
    help: 'HTTP calls to the SII for tenants that send straight to it (also the in-process emulator), by service, operation and status class (error: no answer).',
    labelNames: ['service', 'operation', 'status_class'],
    registers: [registry],
  });
  const providerRateLimited = new Counter({
    name: 'dte_provider_rate_limited_total',
    help: 'Billing-provider answers 429 (rate limited), by host and operation.',
    labelNames: ['host', 'operation'],
    registers: [registry],
  });

  return {
    registry,
    /** Observes one HTTP request; `route` must be the matched pattern (or a fixed word), never the URL. */
    observeHttp(method: string, route: string, status: number, seconds: number) {
      httpDuration.observe({ method, route, status_class: statusClass(status) }, seconds);
    },
    /** The delivery worker's observer (src/modules/webhooks/delivery/delivery-worker.ts). */
    webhooks: {
      deliveryFinished(outcome: WebhookOutcome) {
        webhookOutcomes.inc({ outcome });
      },
    },
    /** The provider client's observer (src/provider/simpleapi/client.ts). */
    provider: {
      call(host: string, operation: string, status: number | null) {
        providerCalls.inc({ host, operation, status_class: statusClass(status) });
        if (status === 429) providerRateLimited.inc({ host, operation });
      },
    },
    /** The SII adapter's observer (src/provider/sii/http.ts, caf-forms.ts): fixed operation names, no ids. */
    sii: {
      call(service: string, operation: string, status: number | null) {
        siiCalls.inc({ service, operation, status_class: statusClass(status) });
      },
    },
    /** The exposition text and its content type. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
