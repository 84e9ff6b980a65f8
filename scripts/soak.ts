/**
 * `npm run soak`: a bounded mixed load on loopback, then the invariants.
 *
 * The service runs as its own process (embedded PGlite by default; SOAK_DATABASE_URL for
 * PostgreSQL) with the in-process SII emulator and a scaled-down webhook retry schedule. Workers
 * create DTEs (facturas and boletas across several tenants), send them in batches and read
 * statuses, while a flaky webhook receiver fails a share of deliveries and answers some slowly.
 * Afterwards: every document is in a final state, every webhook message was delivered (and
 * verified) at least once, no folio was used twice, and the server's memory stayed flat.
 *
 * SOAK_SECONDS (default 120) bounds the load phase; the settle phase is bounded too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { computeDv, computeTotals, formatRutDotted, type TipoDte } from '../src/dte/index.ts';
import { createTestCertificate } from '../test/support/dte/test-certificate.ts';
import { readPeakRssMb } from '../bench/lib/server.ts';
import { createAccountViaCli, scratchDatabase, startServer } from '../test/support/processes.ts';
import { startWebhookReceiver } from '../test/support/webhook-receiver.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 6);
const TENANTS = 3;
const FAIL_RATE = 0.3;

const rss = (pid: number): number | undefined => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
};

async function main() {
  const started = Date.now();
  const db = process.env.SOAK_DATABASE_URL ? await scratchDatabaseAt(process.env.SOAK_DATABASE_URL) : undefined;
  const server = await startServer({
    ...(db?.env ?? {}),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0,1s,2s,4s,8s',
    WEBHOOK_TIMEOUT_MS: '2s',
    // One local receiver takes all deliveries; allow it more than the default 4 at a time.
    WEBHOOK_ENDPOINT_CONCURRENCY: '16',
    EMULATOR_DELAY: '500',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ACCOUNT_RATE_LIMIT_PER_SECOND: '100000',
    ACCOUNT_RATE_LIMIT_BURST: '100000',
  });
  const apiKey = await createAccountViaCli(server.env);
  let failuresShown = 0;
  const api = async (method: string, url: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const r = await fetch(server.url + url, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    // The first few failures are printed, so a red run says what failed.
    if (r.status >= 400 && ++failuresShown <= 5) console.log(`request error: ${method} ${url} → ${r.status} ${text.slice(0, 300)}`);
    return { status: r.status, json: text ? (JSON.parse(text) as Json) : {} };
  };
  const must = async (method: string, url: string, body?: unknown) => {
    const r = await api(method, url, body);
    if (r.status >= 400) throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };

  // A receiver that fails 30 % of requests and answers 5 % slowly (500 ms). It fails one message at
  // most 3 times in a row, so the 5 attempts always suffice: "delivered at least once" is then a
  // property of the service, not of luck (0.3^5 of messages would otherwise exhaust their attempts).
  const receiver = await startWebhookReceiver({
    respond: (d) => {
      const x = Math.random();
      if (x < FAIL_RATE && d.seenCount <= 3) return { status: 500, body: 'flaky' };
      if (x > 0.95) return { status: 200, delayMs: 500 };
      return { status: 200 };
    },
  });
  const endpoint = await must('POST', '/api/v1/webhooks/endpoints', { url: receiver.url });
  receiver.secret = endpoint.secret;

  console.log(
    `soak: ${SECONDS}s of load, ${WORKERS} workers, ${TENANTS} tenants, receiver failing ${FAIL_RATE * 100}%, on ${db ? 'PostgreSQL' : 'PGlite'}`,
  );
  const cert = createTestCertificate({ rut: '13456789-9', commonName: 'Soak Firmante' });
  const pfx = cert.toPfx('soak-pass');
  const tenants: string[] = [];
  for (let i = 0; i < TENANTS; i++) {
    const body = 76_000_000 + crypto.randomInt(1_000_000);
    const t = await must('POST', '/api/v1/tenants', {
      rutEmpresa: formatRutDotted({ body, dv: computeDv(body) }),
      razonSocial: `Soak ${i} SpA`,
      giro: 'Pruebas',
      direccion: 'Calle 1',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 0,
      fechaResolucion: '2024-01-01',
      acteco: [620200],
    });
    await must('POST', `/api/v1/tenants/${t.id}/credentials/api-key`, { apiKey: 'sandbox-soak-key-001' });
    const form = new FormData();
    form.set('file', new Blob([pfx]), 'firma.pfx');
    form.set('password', 'soak-pass');
    form.set('rutCertificado', '13.456.789-9');
    form.set('nombreTitular', 'Soak Firmante');
    form.set('fechaVencimiento', cert.notAfter.toISOString().slice(0, 10));
    form.set('esPrincipal', 'true');
    await must('POST', `/api/v1/tenants/${t.id}/credentials/certificate`, form);
    for (const tipoDte of [33, 39]) {
      let req = await must('POST', `/api/v1/tenants/${t.id}/folios/request`, { tipoDte, cantidad: 1000 });
      // On a busy machine the request can outlast its 25 s wait (202, pending): the load starts only
      // once every CAF is in, or its first documents would find no folios.
      const wait = Date.now() + 120_000;
      while (req.status === 'pending' && Date.now() < wait) {
        await new Promise((r) => setTimeout(r, 500));
        req = await must('GET', `/api/v1/tenants/${t.id}/folios/requests/${req.id}`);
      }
      if (req.status !== 'completed') throw new Error(`folio request for type ${tipoDte} ended ${req.status}: ${JSON.stringify(req)}`);
    }
    tenants.push(t.id as string);
  }

  const created: { id: string; tenantId: string; tipoDte: number; folio: number }[] = [];
  const unsent = new Map<string, string[]>(tenants.map((t) => [t, []]));
  const typeOf = new Map<string, TipoDte>();
  const counts = { creates: 0, sends: 0, envelopes: 0, reads: 0, errors: 0 };
  const memory: { t: number; mb: number }[] = [];
  const sampler = setInterval(() => {
    const mb = rss(server.pid);
    if (mb !== undefined) memory.push({ t: (Date.now() - started) / 1000, mb });
  }, 2000);

  const body = (tipoDte: TipoDte) => {
    const lines =
      tipoDte === 39
        ? [{ nombre: 'Café', cantidad: 1 + crypto.randomInt(5), precioUnitario: 1990 }]
        : [{ nombre: 'Servicio', cantidad: 1 + crypto.randomInt(9), precioUnitario: 10000 + crypto.randomInt(90000) }];
    const totals = computeTotals(tipoDte, lines);
    return {
      tipoDte,
      ...(tipoDte === 33
        ? {
            receptor: {
              rut: '77.777.777-7',
              razonSocial: 'Cliente Soak Ltda',
              giro: 'Comercio',
              direccion: 'Calle 2',
              comuna: 'Santiago',
              ciudad: 'Santiago',
            },
          }
        : {}),
      detalle: lines.map((l, i) => ({ ...l, montoItem: totals.lineas[i] })),
      montoTotal: totals.montoTotal,
    };
  };

  const sendBatch = async (tenantId: string) => {
    const ids = unsent.get(tenantId)!.splice(0);
    if (ids.length === 0) return;
    const r = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: ids });
    // One envelope per kind (EnvioDTE, EnvioBOLETA) in the batch: each is an upload and a status question.
    if (r.status === 202) {
      counts.sends++;
      counts.envelopes += new Set(ids.map((id) => typeOf.get(id) === 39)).size;
    } else counts.errors++;
  };

  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      while (Date.now() < deadline) {
        const tenantId = tenants[(w + counts.creates) % tenants.length]!;
        const tipoDte: TipoDte = Math.random() < 0.5 ? 33 : 39;
        const r = await api('POST', `/api/v1/tenants/${tenantId}/dte`, body(tipoDte));
        if (r.status !== 201) {
          counts.errors++;
          continue;
        }
        counts.creates++;
        created.push({ id: r.json.id, tenantId, tipoDte, folio: r.json.folio });
        typeOf.set(r.json.id, tipoDte);
        unsent.get(tenantId)!.push(r.json.id);
        if (unsent.get(tenantId)!.length >= 10) await sendBatch(tenantId);
        const some = created[crypto.randomInt(created.length)]!;
        if ((await api('GET', `/dte/${some.id}/status`)).status === 200) counts.reads++;
        else counts.errors++;
      }
    }),
  );
  for (const t of tenants) await sendBatch(t);
  console.log(`load done: ${counts.creates} creates, ${counts.sends} sends, ${counts.reads} status reads, ${counts.errors} errors`);

  // Settle: every document reaches a final state; every message reaches every endpoint.
  // The provider answers at most 40 calls a minute on its DTE host (docs/emulator.md), and every
  // envelope takes at least an upload and a status question: the faster the service creates and
  // sends, the longer the provider needs to confirm what it sent. 5 minutes, or that time with a margin.
  const providerMinutes = (counts.envelopes * 2) / 40;
  const settleMs = Math.max(300_000, Math.ceil(providerMinutes * 1.5 * 60_000));
  console.log(`settling: ${counts.envelopes} envelopes, at most ${Math.round(settleMs / 1000)} s (the provider's 40 calls a minute)`);
  const settleDeadline = Date.now() + settleMs;
  let pending = created.map((d) => d.id);
  const finals = new Map<string, string>();
  while (pending.length && Date.now() < settleDeadline) {
    const next: string[] = [];
    for (const id of pending) {
      const s = await api('GET', `/api/v1/dte/${id}/status`);
      if (['accepted', 'accepted_with_objections', 'rejected', 'send_failed'].includes(s.json.status)) finals.set(id, s.json.status);
      else next.push(id);
    }
    pending = next;
    if (pending.length) await new Promise((r) => setTimeout(r, 1000));
  }
  const messages: Json[] = [];
  let undelivered: Json[] = [];
  while (Date.now() < settleDeadline) {
    messages.length = 0;
    let iterator: string | null = null;
    do {
      const page: Json = await must(
        'GET',
        `/api/v1/webhooks/messages?limit=250${iterator ? `&iterator=${encodeURIComponent(iterator)}` : ''}`,
      );
      messages.push(...page.data);
      iterator = page.iterator;
    } while (iterator);
    const verifiedIds = new Set(receiver.deliveries.filter((d) => d.verified).map((d) => d.webhookId));
    undelivered = messages.filter((m) => !verifiedIds.has(m.id));
    if (undelivered.length === 0 && pending.length === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  clearInterval(sampler);

  // No folio used twice, per tenant and type, and the folios handed out are consecutive.
  const byKey = new Map<string, number[]>();
  for (const d of created) {
    const k = `${d.tenantId}:${d.tipoDte}`;
    byKey.set(k, [...(byKey.get(k) ?? []), d.folio]);
  }
  let duplicates = 0;
  let gaps = 0;
  for (const folios of byKey.values()) {
    const sorted = [...folios].sort((a, b) => a - b);
    duplicates += sorted.length - new Set(sorted).size;
    gaps += sorted[sorted.length - 1]! - sorted[0]! + 1 - new Set(sorted).size;
  }
  const statuses = [...finals.values()].reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
  const half = Math.floor(memory.length / 2);
  const avg = (xs: { mb: number }[]) => Math.round(xs.reduce((a, x) => a + x.mb, 0) / Math.max(1, xs.length));
  const firstHalf = avg(memory.slice(1, half));
  const secondHalf = avg(memory.slice(half));
  const growth = firstHalf ? (secondHalf - firstHalf) / firstHalf : 0;
  const retried = receiver.deliveries.filter((d) => d.seenCount > 1).length;
  const badSignatures = receiver.deliveries.filter((d) => !d.verified).length;
  const peak = readPeakRssMb(server.pid);
  await receiver.close();
  await server.stop();
  await db?.drop();

  const summary = {
    database: db ? 'postgres' : 'pglite',
    seconds: SECONDS,
    creates: counts.creates,
    sends: counts.sends,
    statusReads: counts.reads,
    requestErrors: counts.errors,
    documentsFinal: `${finals.size}/${created.length}`,
    finalStates: statuses,
    webhookMessages: messages.length,
    messagesNotDeliveredAndVerified: undelivered.length,
    receiverRequests: receiver.deliveries.length,
    redeliveries: retried,
    badSignatures,
    folioDuplicates: duplicates,
    folioGaps: gaps,
    rssMbFirstHalfAvg: firstHalf,
    rssMbSecondHalfAvg: secondHalf,
    rssGrowth: `${(growth * 100).toFixed(1)}%`,
    peakRssMb: peak,
  };
  console.log(JSON.stringify(summary, null, 2));
  const failures = [
    pending.length ? `${pending.length} documents not in a final state` : '',
    undelivered.length ? `${undelivered.length} webhook messages never delivered and verified` : '',
    duplicates ? `${duplicates} folios used twice` : '',
    badSignatures ? `${badSignatures} deliveries failed signature checks` : '',
    counts.errors ? `${counts.errors} request errors` : '',
    growth > 0.25 ? `memory grew ${(growth * 100).toFixed(0)}% between halves` : '',
  ].filter(Boolean);
  console.log(
    failures.length
      ? `SOAK FAILED: ${failures.join('; ')}`
      : 'soak passed: every document final, every event delivered, no folio reused, memory flat',
  );
  process.exit(failures.length ? 1 : 0);
}

async function scratchDatabaseAt(url: string) {
  process.env.TEST_DATABASE_URL = url;
  return scratchDatabase();
}

await main();
