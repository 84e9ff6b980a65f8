/**
 * Figures for a direct send (issue 26): 1,000 facturas of a direct tenant (provider "sii") sent on
 * the cross-process stack of test/e2e/direct-sii.e2e.test.ts — the service (`node src/main.ts`,
 * PROVIDER=simpleapi, SII_BASE_URL at the emulator) and the standalone emulator (`dte emulator
 * --tls`) — and what it cost: the calls to the SII by operation and the tokens fetched (from the
 * emulator's stats), and the time from the first send to every document accepted.
 *
 *   ./node_modules/.bin/node scripts/direct-sii-figures.ts
 *
 * FIGURES_COUNT (1000), FIGURES_DELAY (the emulator's verdict delay, 2s: its default),
 * FIGURES_POLL_INITIAL (the service's DTE_POLL_INITIAL, 3s: its default); on PostgreSQL when
 * TEST_DATABASE_URL is set (a scratch database), on PGlite otherwise. Prints a table; writes nothing.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { EmulatorStats } from '../src/provider/emulator/stats.ts';
import { validTenant } from '../test/support/app.ts';
import { createMany } from '../test/support/bulk.ts';
import { CERT_PASSWORD, CERT_RUT, randomRut, testCertificate } from '../test/support/issuing.ts';
import { ymd } from '../test/support/pfx.ts';
import { apiClient, createAccountViaCli, launch, scratchDatabase, startServer } from '../test/support/processes.ts';

const COUNT = Number(process.env.FIGURES_COUNT ?? 1000);
const DELAY = process.env.FIGURES_DELAY ?? '2s';
const POLL_INITIAL = process.env.FIGURES_POLL_INITIAL ?? '3s';

function httpsCall(ca: string, url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}) {
  return new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const req = https.request(url, { method: opts.method ?? 'GET', headers: opts.headers, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'direct-sii-figures-'));
  fs.mkdirSync(path.join(work, 'emulator'));
  const db = process.env.TEST_DATABASE_URL ? await scratchDatabase() : undefined;
  const emuProc = launch(
    ['bin/dte.js', 'emulator', '--port', '0', '--data-dir', path.join(work, 'emulator'), '--delay', DELAY, '--tls', '--json'],
    {},
  );
  let info: { url: string; siiPublicKey: string; tlsCertificate: string } | undefined;
  for (const deadline = Date.now() + 60_000; !info; await new Promise((r) => setTimeout(r, 100))) {
    const line = emuProc
      .log()
      .split('\n')
      .find((l) => l.startsWith('{'));
    if (line) info = JSON.parse(line) as typeof info;
    else if (emuProc.proc.exitCode !== null || Date.now() > deadline) throw new Error(`emulator did not start:\n${emuProc.log()}`);
  }
  const emu = info;
  const ca = fs.readFileSync(emu.tlsCertificate, 'utf8');
  const stats = async () => JSON.parse((await httpsCall(ca, `${emu.url}/emulator/stats`)).body.toString('utf8')) as EmulatorStats;

  const server = await startServer({
    ...(db?.env ?? {}),
    ...(db ? {} : { DATA_DIR: path.join(work, 'data'), KEYS_DIR: path.join(work, 'keys') }),
    PROVIDER: 'simpleapi',
    SIMPLEAPI_BASE_URL: emu.url,
    SIMPLEAPI_SERVICIOS_URL: emu.url,
    SII_BASE_URL: emu.url,
    NODE_EXTRA_CA_CERTS: emu.tlsCertificate,
    EMULATOR_SII_PUBLIC_KEY: emu.siiPublicKey,
    DTE_POLL_INITIAL: POLL_INITIAL,
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
  });
  try {
    const api = apiClient(server.url, await createAccountViaCli(server.env));
    const rut = randomRut();
    const t = await api('POST', '/api/v1/tenants', validTenant({ acteco: [620200], rutEmpresa: rut, provider: 'sii' }));
    if (t.status !== 201) throw new Error(`tenant: ${t.status} ${t.body.toString()}`);
    const tenantId = t.json.id as string;
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

    // The SII's forms grant a new issuer 20 folios a request (MAX_AUTOR): the 1,000 come as one CAF
    // downloaded from the (emulated) SII and uploaded, as a company with a history would.
    const input = new FormData();
    input.append('input', JSON.stringify({ RutCertificado: CERT_RUT, Password: CERT_PASSWORD, RutEmpresa: rut, Ambiente: 0 }));
    input.append('files', new Blob([new Uint8Array(pfx)], { type: 'application/x-pkcs12' }), 'firma.pfx');
    const encoded = new Response(input);
    const caf = await httpsCall(ca, `${emu.url}/api/folios/get/33/${COUNT}`, {
      method: 'POST',
      headers: { authorization: 'figures-key-0001', 'content-type': encoded.headers.get('content-type')! },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    if (caf.status !== 200) throw new Error(`folios/get: ${caf.status} ${caf.body.toString()}`);
    const cafForm = new FormData();
    cafForm.append('file', new Blob([new Uint8Array(caf.body)], { type: 'application/xml' }), 'caf.xml');
    const up = await api('POST', `/api/v1/tenants/${tenantId}/folios/caf`, cafForm);
    if (up.status !== 201) throw new Error(`caf upload: ${up.status} ${up.body.toString()}`);

    const createStart = Date.now();
    const ids = await createMany(api, tenantId, 33, COUNT);
    const createMs = Date.now() - createStart;

    const before = await stats();
    // Sent in batches of 500 (the send limit); then the documents counted by status until every
    // one is final, noting when none was left waiting for its upload (created/sending).
    const started = Date.now();
    for (let i = 0; i < ids.length; i += 500) {
      const r = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: ids.slice(i, i + 500) });
      if (r.status !== 202) throw new Error(`send: ${r.status} ${r.body.toString()}`);
    }
    const countOf = async (status: string) => {
      let n = 0;
      let iterator: string | undefined;
      do {
        const q = new URLSearchParams({ status, limit: '100', ...(iterator ? { iterator } : {}) });
        const page = await api('GET', `/api/v1/tenants/${tenantId}/dte?${q}`);
        n += (page.json.data as unknown[]).length;
        iterator = (page.json.iterator as string | null) ?? undefined;
      } while (iterator);
      return n;
    };
    let uploadedMs: number | undefined;
    const counts: Record<string, number> = {};
    let pending = ids.length;
    for (const deadline = Date.now() + 600_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      if (uploadedMs === undefined && (await countOf('created')) + (await countOf('sending')) === 0) uploadedMs = Date.now() - started;
      for (const st of ['accepted', 'accepted_with_objections', 'rejected', 'send_failed']) counts[st] = await countOf(st);
      pending = ids.length - Object.values(counts).reduce((a, b) => a + b, 0);
      if (pending === 0) break;
    }
    const ms = Date.now() - started;
    for (const k of Object.keys(counts)) if (counts[k] === 0) delete counts[k];
    const after = await stats();

    const rows: [string, number][] = [];
    for (const op of new Set([...Object.keys(before.sii.routes), ...Object.keys(after.sii.routes)])) {
      const n = (after.sii.routes[op]?.total ?? 0) - (before.sii.routes[op]?.total ?? 0);
      if (n > 0) rows.push([op, n]);
    }
    rows.sort((a, b) => b[1] - a[1]);
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(
      `\nDirect send of ${COUNT} facturas — ${db ? 'PostgreSQL' : 'PGlite'}, emulator --tls delay ${DELAY}, DTE_POLL_INITIAL ${POLL_INITIAL}`,
    );
    console.log(
      `created in ${(createMs / 1000).toFixed(1)} s (API, 16 at a time); outcome: ${JSON.stringify(counts)}${pending ? `, ${pending} not final` : ''}`,
    );
    console.log(`envelopes uploaded: ${(after.sii.routes['DTEUpload']?.total ?? 0) - (before.sii.routes['DTEUpload']?.total ?? 0)}\n`);
    console.log(`| ${pad('SII operation', 28)} | calls |`);
    console.log(`|${'-'.repeat(30)}|-------|`);
    for (const [op, n] of rows) console.log(`| ${pad(op, 28)} | ${String(n).padStart(5)} |`);
    console.log(`| ${pad('total', 28)} | ${String(after.sii.total - before.sii.total).padStart(5)} |`);
    console.log(
      `| ${pad('tokens fetched (soap / rest)', 28)} | ${after.sii.tokensIssued.soap - before.sii.tokensIssued.soap} / ${after.sii.tokensIssued.rest - before.sii.tokensIssued.rest} |`,
    );
    console.log(`| ${pad('send → all uploaded', 28)} | ${uploadedMs === undefined ? '?' : (uploadedMs / 1000).toFixed(1)} s |`);
    console.log(`| ${pad('send → all accepted', 28)} | ${(ms / 1000).toFixed(1)} s |`);
  } finally {
    await server.stop();
    await emuProc.stop();
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
