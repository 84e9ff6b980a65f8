import { validTenant } from './app.ts';
import { CERT_PASSWORD, dteBody, testCertificate } from './issuing.ts';
import { ymd } from './pfx.ts';
import type { apiClient } from './processes.ts';

/**
 * Many documents through the public API, as a SaaS issues them: created `concurrency` at a time,
 * sent in batches of 500 (the send limit), then followed until none is in flight. Used by the
 * production-limits end-to-end test and `npm run bench`.
 */
type Api = ReturnType<typeof apiClient>;

/** A tenant made ready through the public API: created, its provider key and certificate saved. */
export async function readyTenantOverHttp(api: Api, providerKey: string): Promise<string> {
  const tenant = await api('POST', '/api/v1/tenants', validTenant({ acteco: [620200] }));
  if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${tenant.body.toString()}`);
  const tenantId = tenant.json.id as string;
  const k = await api('POST', `/api/v1/tenants/${tenantId}/credentials/api-key`, { apiKey: providerKey });
  if (k.status !== 200) throw new Error(`api key: ${k.status} ${k.body.toString()}`);
  const { cert, pfx } = testCertificate();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pfx)], { type: 'application/x-pkcs12' }), 'firma.pfx');
  form.append('password', CERT_PASSWORD);
  form.append('rutCertificado', '12.345.678-5');
  form.append('nombreTitular', 'Firmante de Prueba');
  form.append('fechaVencimiento', ymd(cert.notAfter));
  form.append('esPrincipal', 'true');
  const c = await api('POST', `/api/v1/tenants/${tenantId}/credentials/certificate`, form);
  if (c.status !== 201) throw new Error(`certificate: ${c.status} ${c.body.toString()}`);
  return tenantId;
}

export async function createMany(api: Api, tenantId: string, tipoDte: 33 | 39, n: number, concurrency = 16): Promise<string[]> {
  const ids: string[] = [];
  let started = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      let r = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(tipoDte));
      // A well-behaved client waits out the service's own rate limit (Retry-After) and tries again.
      while (r.status === 429) {
        await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? '1') * 1000));
        r = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(tipoDte));
      }
      if (r.status !== 201) throw new Error(`create ${tipoDte}: ${r.status} ${r.body.toString()}`);
      ids.push(r.json.id as string);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

const FINAL = ['accepted', 'accepted_with_objections', 'rejected', 'send_failed'];

/** Sends in batches of 500 and waits until every document has a final status; counts per status. */
export async function sendAndConfirm(
  api: Api,
  tenantId: string,
  ids: string[],
  timeoutMs = 300_000,
): Promise<{ counts: Record<string, number>; pending: number; ms: number }> {
  const started = Date.now();
  for (let i = 0; i < ids.length; i += 500) {
    const s = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: ids.slice(i, i + 500) });
    if (s.status !== 202) throw new Error(`send: ${s.status} ${s.body.toString()}`);
  }
  const pending = new Set(ids);
  const statuses = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  while (pending.size > 0 && Date.now() < deadline) {
    for (const status of FINAL) {
      let iterator: string | undefined;
      do {
        const q = new URLSearchParams({ status, limit: '100', ...(iterator ? { iterator } : {}) });
        const page = await api('GET', `/api/v1/tenants/${tenantId}/dte?${q}`);
        for (const d of page.json.data as { id: string; status: string }[]) if (pending.delete(d.id)) statuses.set(d.id, d.status);
        iterator = (page.json.iterator as string | null) ?? undefined;
      } while (iterator);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 250));
  }
  const counts: Record<string, number> = {};
  for (const s of statuses.values()) counts[s] = (counts[s] ?? 0) + 1;
  return { counts, pending: pending.size, ms: Date.now() - started };
}
