/**
 * `npm run demo`: the contract's whole flow against the embedded default, with readable progress.
 *
 * It starts the service (PGlite + in-process SII emulator) in `.demo/`, creates an account and a
 * tenant, makes a test certificate, completes activation through the hosted page's HTTP flow,
 * requests folios, creates one document of each supported type, sends them, waits for the SII's
 * answers, writes each document's PDF to `.demo/pdf/`, and shows the webhook deliveries a local
 * receiver got (each signature verified). It
 * ends by printing the dashboard URL and the credentials to log in, and keeps the service running
 * until Ctrl-C (`--exit` stops at the end instead; the tests use it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGLITE_NODE_FLAGS } from '../src/db/pglite.ts';
import { computeDv, computeTotals, formatRutDotted, siiDate, type TipoDte } from '../src/dte/index.ts';
import { createTestCertificate } from '../test/support/dte/test-certificate.ts';
import { startWebhookReceiver } from '../test/support/webhook-receiver.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_DIR = path.resolve(process.env.DEMO_DIR ?? path.join(ROOT, '.demo'));
const exitAtEnd = process.argv.includes('--exit') || process.env.DEMO_EXIT === '1';
const TYPES: TipoDte[] = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112];
const NAMES: Record<number, string> = {
  33: 'Factura electrónica',
  34: 'Factura exenta',
  39: 'Boleta electrónica',
  41: 'Boleta exenta',
  46: 'Factura de compra',
  52: 'Guía de despacho',
  56: 'Nota de débito',
  61: 'Nota de crédito',
  43: 'Liquidación factura',
  110: 'Factura exportación',
  111: 'N. débito export.',
  112: 'N. crédito export.',
};

const tty = process.stdout.isTTY;
const c = (code: string) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = c('1');
const green = c('32');
const red = c('31');
const dim = c('2');
let stepNo = 0;
const step = (title: string) => console.log(`\n${bold(`${++stepNo}. ${title}`)}`);
const ok = (msg: string) => console.log(`   ${green('✓')} ${msg}`);
const info = (msg: string) => console.log(`   ${dim(msg)}`);

const freePort = (preferred: number) =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    s.once('error', () => {
      const t = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (t.address() as net.AddressInfo).port;
        t.close(() => resolve(p));
      });
    });
    s.listen(preferred, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

function startService(env: Record<string, string>): Promise<{ proc: ChildProcess; log: () => string }> {
  const proc = spawn(process.execPath, [...PGLITE_NODE_FLAGS, 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b));
  proc.stderr!.on('data', (b: Buffer) => (out += b));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('listening on')) {
        clearInterval(t);
        resolve({ proc, log: () => out });
      } else if (proc.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`the service exited:\n${out}`));
      }
    }, 100);
  });
}

function cli(args: string[], env: Record<string, string>, input?: string): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/dte.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`dte ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** A tiny cookie-keeping client for the hosted activation page (plain HTTP, as a browser posts). */
function pageClient(base: string) {
  const cookies = new Map<string, string>();
  let last = '';
  const remember = (r: Response) => {
    for (const s of r.headers.getSetCookie()) {
      const [pair] = s.split(';');
      const i = pair!.indexOf('=');
      cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  const headers = () => ({ cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: base });
  return {
    async get(url: string) {
      const r = await fetch(base + url, { headers: headers(), redirect: 'manual' });
      remember(r);
      last = await r.text();
      return { status: r.status, body: last };
    },
    csrf() {
      const m = /name="_csrf" value="([^"]+)"/.exec(last);
      if (!m) throw new Error('no form on the page');
      return m[1]!;
    },
    async post(url: string, body: URLSearchParams | FormData) {
      const r = await fetch(base + url, { method: 'POST', headers: headers(), body, redirect: 'manual' });
      remember(r);
      last = await r.text();
      return { status: r.status, location: r.headers.get('location'), body: last };
    },
  };
}

/** The folio each note refers to: the factura (33) for 56 and 61, the factura de exportación (110) for 111 and 112. */
type Referenced = Partial<Record<33 | 110, number>>;

function dteBody(tipoDte: TipoDte, referenced: Referenced, today: string): Record<string, unknown> {
  if (tipoDte >= 110) return exportBody(tipoDte, referenced, today);
  type Line = { nombre: string; cantidad: number; precioUnitario: number; exento?: boolean; tipoDocLiquidado?: number };
  let lines: Line[] = [
    { nombre: 'Desarrollo de software', cantidad: 10, precioUnitario: 35000 },
    { nombre: 'Licencia anual', cantidad: 1, precioUnitario: 129900 },
    { nombre: 'Capacitación', cantidad: 2, precioUnitario: 45000, exento: true },
  ];
  if (tipoDte === 34 || tipoDte === 41) lines = [{ nombre: 'Asesoría exenta', cantidad: 3, precioUnitario: 25000 }];
  if (tipoDte === 39)
    lines = [
      { nombre: 'Café grande', cantidad: 2, precioUnitario: 2490 },
      { nombre: 'Medialuna', cantidad: 3, precioUnitario: 890 },
    ];
  if (tipoDte === 56 || tipoDte === 61) lines = [{ nombre: 'Ajuste de precio', cantidad: 1, precioUnitario: 10000 }];
  // A liquidación-factura settles sales made on behalf of the receptor, less the commission.
  if (tipoDte === 43) lines = [{ nombre: 'Venta por cuenta de terceros', cantidad: 10, precioUnitario: 35000, tipoDocLiquidado: 33 }];
  const comisiones = tipoDte === 43 ? [{ tipo: 'comision', glosa: 'Comisión 5 %', tasa: 5, montoNeto: 17500 }] : undefined;
  const totals = computeTotals(tipoDte, lines, { comisiones });
  return {
    tipoDte,
    ...(tipoDte === 39 || tipoDte === 41
      ? {}
      : {
          receptor: {
            rut: '77.777.777-7',
            razonSocial: 'Comercial Ñandú Limitada',
            giro: 'Comercio al por menor',
            direccion: 'Av. Libertador Bernardo O’Higgins 123'.replace('’', "'"),
            comuna: 'Santiago',
            ciudad: 'Santiago',
            // The receptor's exchange address: accepted documents are e-mailed there (docs/exchange.md).
            correo: 'intercambio@nandu.example.cl',
          },
        }),
    detalle: lines.map((l, i) => ({ ...l, montoItem: totals.lineas[i] })),
    montoTotal: totals.montoTotal,
    ...(comisiones ? { comisiones } : {}),
    ...(tipoDte === 56 || tipoDte === 61
      ? { referencias: [{ tipoDocRef: 33, folioRef: referenced[33], fechaRef: today, codRef: 3, razonRef: 'Corrige monto' }] }
      : {}),
  };
}

/** 110, 111, 112: a foreign receptor (55.555.555-5), amounts in US dollars, also shown in pesos. */
function exportBody(tipoDte: TipoDte, referenced: Referenced, today: string): Record<string, unknown> {
  const lines = [{ nombre: 'Consultoría de software', cantidad: 12, precioUnitario: 95.5 }];
  const exportacion = { moneda: 'DOLAR USA', otraMoneda: { moneda: 'PESO CL', tipoCambio: 950.25 } };
  const totals = computeTotals(tipoDte, lines, { moneda: exportacion.moneda, otraMoneda: exportacion.otraMoneda });
  return {
    tipoDte,
    receptor: {
      rut: '55.555.555-5',
      razonSocial: 'Globex Corporation',
      giro: 'Software',
      direccion: '1 Main Street, Springfield',
      ciudad: 'Springfield',
      correo: 'billing@globex.example.com',
      extranjero: { nacionalidad: '225' },
    },
    // Services (IndServicio 3): no sale clause and no units per line; the route of the services' delivery is still declared.
    indServicio: 3,
    exportacion: { ...exportacion, aduana: { viaTransporte: 4, puertoEmbarque: 901, puertoDesembarque: 262, paisReceptor: 225 } },
    detalle: lines.map((l, i) => ({ ...l, montoItem: totals.lineas[i] })),
    montoTotal: totals.montoTotal,
    ...(tipoDte !== 110
      ? { referencias: [{ tipoDocRef: 110, folioRef: referenced[110], fechaRef: today, codRef: 3, razonRef: 'Corrige monto' }] }
      : {}),
  };
}

// The demo reads API answers loosely; the routes' schemas are tested elsewhere.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let stopService: () => Promise<void> = async () => {};

async function main() {
  console.log(bold('DTE service demo: the whole flow on the embedded database and the built-in SII emulator'));
  fs.rmSync(DEMO_DIR, { recursive: true, force: true });
  const port = await freePort(Number(process.env.PORT ?? 3000));
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: base,
    APP_URL: base,
    DATA_DIR: path.join(DEMO_DIR, 'data'),
    KEYS_DIR: path.join(DEMO_DIR, 'keys'),
    LOG_LEVEL: 'warn',
    PROVIDER: 'emulator',
    EMULATOR_DELAY: '1500',
    // SimpleAPI allows 5 folio requests a minute per key (docs/emulator.md, "Rate limits"), so
    // twelve types would wait two minutes for their folios: the demo turns the emulator's limits
    // off (a setting, `SIMPLEAPI_RATE_LIMITS`; the service paces itself to them when they are on).
    SIMPLEAPI_RATE_LIMITS: 'off',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', // the demo's receiver listens on 127.0.0.1
  };

  step('Start the service');
  const service = await startService(env);
  const stop = (stopService = async () => {
    if (service.proc.exitCode === null) {
      service.proc.kill('SIGTERM');
      await new Promise((r) => service.proc.once('exit', r));
    }
  });
  process.on('SIGINT', () => void stop().then(() => process.exit(0)));
  ok(`listening on ${base} (data in ${path.relative(ROOT, DEMO_DIR)}/)`);

  step('Create an account, its API key and a dashboard password');
  const email = 'demo@example.com';
  const password = `demo-${crypto.randomBytes(6).toString('base64url')}`;
  const created = JSON.parse(
    cli(['account', 'create', '--name', 'Demo SaaS', '--email', email, '--json'], env).trim().split('\n').pop()!,
  ) as {
    apiKey: string;
  };
  cli(['account', 'set-password', '--email', email], env, `${password}\n`);
  const apiKey = created.apiKey;
  ok(`account ${email}, API key ${apiKey.slice(0, 14)}…`);
  const api = async (method: string, url: string, body?: unknown, extra: Record<string, string> = {}): Promise<Json> => {
    const r = await fetch(base + url, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...extra },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    if (r.status >= 400) throw new Error(`${method} ${url} → ${r.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as Json;
  };

  step('Register a webhook endpoint with a local receiver');
  const receiver = await startWebhookReceiver();
  const endpoint = await api('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, description: 'demo receiver' });
  receiver.secret = endpoint.secret;
  ok(`${receiver.url} (all events), secret ${String(endpoint.secret).slice(0, 12)}…`);

  step('Create a tenant');
  const body = 76_000_000 + crypto.randomInt(1_000_000);
  const rutEmpresa = formatRutDotted({ body, dv: computeDv(body) });
  const tenant = await api('POST', '/api/v1/tenants', {
    rutEmpresa,
    razonSocial: 'Panadería La Espiga SpA',
    giro: 'Elaboración y venta de productos de panadería',
    direccion: 'Av. Providencia 1234',
    comuna: 'Providencia',
    ciudad: 'Santiago',
    numeroResolucion: 0,
    fechaResolucion: '2024-01-15',
    acteco: [107100],
    ambiente: 'certificacion',
  });
  const tenantId = tenant.id as string;
  ok(`${tenant.razonSocial} (${rutEmpresa}), status ${tenant.status}`);

  step('Generate a test signing certificate (.pfx)');
  const certPassword = 'clave-demo-1';
  const cert = createTestCertificate({ rut: '13456789-9', commonName: 'Camila Rojas Soto' });
  const pfx = cert.toPfx(certPassword);
  ok(`holder Camila Rojas Soto, RUT 13.456.789-9, valid until ${cert.notAfter.toISOString().slice(0, 10)}`);

  step('Complete activation through the hosted page (what the tenant’s customer does)');
  const link = await api('POST', `/api/v1/tenants/${tenantId}/activation-link`);
  info(`activation link ${String(link.url).replace(/act_.*/, 'act_…')} (expires ${link.expiresAt})`);
  const page = pageClient(base);
  const token = String(link.url).slice(String(link.url).indexOf('/activate/'));
  await page.get(token);
  let r = await page.post(`${token}/api-key`, new URLSearchParams({ _csrf: page.csrf(), apiKey: 'sandbox-demo-key-0001' }));
  if (r.status !== 303) throw new Error(`step 1 failed: ${r.status}`);
  ok('step 1: billing-provider API key verified');
  await page.get(token);
  const form = new FormData();
  form.set('_csrf', page.csrf());
  form.set('password', certPassword);
  form.set('file', new Blob([pfx], { type: 'application/x-pkcs12' }), 'firma.pfx');
  r = await page.post(`${token}/certificate`, form);
  if (r.status !== 303) throw new Error(`step 2 failed: ${r.status} ${r.body.slice(0, 500)}`);
  await page.get(r.location ?? token);
  ok('step 2: certificate read (holder, RUT and expiry shown for confirmation)');
  r = await page.post(`${token}/confirm`, new URLSearchParams({ _csrf: page.csrf() }));
  if (r.status !== 303 && r.status !== 200) throw new Error(`confirmation failed: ${r.status}`);
  const status = await api('GET', `/api/v1/tenants/${tenantId}/credentials/status`);
  ok(
    `activation completed: apiKey configured ${status.apiKey?.['configured']}, ${(status.certificates as unknown[]).length} certificate, ready ${status.ready}`,
  );

  step('Request folios (CAF) from the SII for every document type');
  info('(the emulator’s rate limits are off here; at SimpleAPI’s, 5 folio requests a minute, this step takes two minutes)');
  for (const tipoDte of TYPES) {
    let req = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte, cantidad: 20 });
    while (req.status === 'pending') {
      await new Promise((res) => setTimeout(res, 500));
      req = await api('GET', `/api/v1/tenants/${tenantId}/folios/requests/${req.id}`);
    }
    const rango = req.rango as unknown as { desde: number; hasta: number };
    ok(`${String(tipoDte).padEnd(3)} ${NAMES[tipoDte]!.padEnd(20)} folios ${rango.desde}–${rango.hasta}`);
  }

  step('Create one document of each type (folio + XML + TED stamp + signature)');
  const today = siiDate(new Date());
  const dtes: { id: string; tipoDte: number; folio: number; montoTotal: number }[] = [];
  const referenced: Referenced = {};
  for (const tipoDte of TYPES) {
    const d = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(tipoDte, referenced, today), {
      'idempotency-key': `demo-${tipoDte}`,
    });
    if (tipoDte === 33 || tipoDte === 110) referenced[tipoDte] = d.folio;
    dtes.push({ id: d.id, tipoDte, folio: d.folio, montoTotal: d.montoTotal });
    const currency = tipoDte >= 110 ? 'US$' : '$';
    ok(`${String(tipoDte).padEnd(3)} folio ${String(d.folio).padEnd(3)} total ${currency}${Number(d.montoTotal).toLocaleString('es-CL')}`);
  }

  step('Send them to the SII');
  const sent = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: dtes.map((d) => d.id) });
  for (const e of sent.envios as unknown as { tipoEnvio: string; dteIds: string[]; trackId: string | null; status: string }[])
    ok(`${e.tipoEnvio}: ${e.dteIds.length} documents, ${e.trackId ? `trackId ${e.trackId}` : e.status}`);

  step('Wait for the SII’s answers');
  const final = new Map<string, { status: string; estado: string | null; glosa: string | null }>();
  const spinner = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const deadline = Date.now() + 120_000;
  for (let i = 0; final.size < dtes.length; i++) {
    if (Date.now() > deadline) throw new Error('the SII answers did not arrive within 2 minutes');
    for (const d of dtes) {
      if (final.has(d.id)) continue;
      const s = await api('GET', `/dte/${d.id}/status`);
      if (!['created', 'sending', 'sent'].includes(s.status))
        final.set(d.id, { status: s.status, estado: s.sii?.['estado'] ?? null, glosa: s.sii?.['glosa'] ?? null });
    }
    if (tty) process.stdout.write(`\r   ${spinner[i % spinner.length]} ${final.size}/${dtes.length} documents answered`);
    if (final.size < dtes.length) await new Promise((res) => setTimeout(res, 400));
  }
  if (tty) process.stdout.write('\r\x1b[K');
  for (const d of dtes) {
    const f = final.get(d.id)!;
    const mark = f.status === 'rejected' ? red('✗') : green('✓');
    console.log(
      `   ${mark} ${String(d.tipoDte).padEnd(3)} folio ${String(d.folio).padEnd(3)} ${f.status.padEnd(25)} ${dim(`${f.estado ?? ''} ${f.glosa ?? ''}`)}`,
    );
  }

  step('Print them: one PDF per document (the timbre is the PDF417 barcode)');
  const pdfDir = path.join(DEMO_DIR, 'pdf');
  fs.mkdirSync(pdfDir, { recursive: true });
  for (const d of dtes) {
    // Boletas on the 80 mm roll of a point of sale, the rest on letter paper; 33 also as its cedible copy.
    const variants = d.tipoDte === 39 || d.tipoDte === 41 ? ['?formato=80mm'] : d.tipoDte === 33 ? ['', '?cedible=true'] : [''];
    for (const q of variants) {
      const r = await fetch(`${base}/api/v1/tenants/${tenantId}/dte/${d.id}/pdf${q}`, { headers: { authorization: `Bearer ${apiKey}` } });
      if (r.status !== 200) throw new Error(`GET …/dte/${d.id}/pdf${q} → ${r.status} ${await r.text()}`);
      const name = /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? `${d.id}.pdf`;
      fs.writeFileSync(path.join(pdfDir, name), Buffer.from(await r.arrayBuffer()));
      ok(`${String(d.tipoDte).padEnd(3)} ${NAMES[d.tipoDte]!.padEnd(20)} ${path.relative(process.cwd(), path.join(pdfDir, name))}`);
    }
  }
  info(`Written to ${pdfDir}`);

  step('E-mail each accepted document to its receptor (no SMTP_URL: kept in the local mailbox)');
  for (const d of dtes.filter((x) => x.tipoDte !== 39 && x.tipoDte !== 41 && final.get(x.id)?.status !== 'rejected')) {
    let list: Json[] = [];
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((res) => setTimeout(res, 200))) {
      list = (await api('GET', `/api/v1/tenants/${tenantId}/dte/${d.id}/deliveries`)).data as Json[];
      if (list.length > 0 && list.every((x) => x.status !== 'pending')) break;
    }
    const last = list[list.length - 1];
    const mark = last?.status === 'sent' ? green('✓') : red('✗');
    console.log(
      `   ${mark} ${String(d.tipoDte).padEnd(3)} folio ${String(d.folio).padEnd(3)} ${String(last?.status ?? 'none').padEnd(8)} ${dim(`${last?.to ?? ''} ${last?.messageId ?? ''}`)}`,
    );
  }
  info(`The messages and their attachments (EnvioDTE + PDF): ${base}/mailbox`);

  step('Webhook deliveries the local receiver got');
  const expected = 1 + dtes.length; // tenant.credentials.updated + one dte.status.changed per document
  await receiver.waitFor((all) => all.filter((x) => x.verified).length >= expected, 60_000).catch(() => {});
  for (const d of receiver.deliveries) {
    const data = d.payload?.data ?? {};
    const what =
      d.payload?.event === 'dte.status.changed'
        ? `${data.tipoDte} folio ${data.folio}: ${data.previousStatus} → ${data.status}`
        : d.payload?.event === 'folio.low'
          ? `${data.tipoDte}: ${data.disponibles} left`
          : JSON.stringify(data).slice(0, 80);
    console.log(
      `   ${d.verified ? green('✓ signature verified') : red(`✗ ${d.problem}`)}  ${String(d.payload?.event).padEnd(27)} ${dim(what)}`,
    );
  }
  const unverified = receiver.deliveries.filter((d) => !d.verified).length;
  if (unverified) throw new Error(`${unverified} deliveries failed verification`);

  console.log(`\n${bold('Done.')} Look around in the dashboard:\n`);
  console.log(`   ${bold(`${base}/`)}`);
  console.log(`   e-mail    ${email}`);
  console.log(`   password  ${password}`);
  console.log(`   API key   ${apiKey}`);
  console.log(`\n   API reference: ${base}/docs`);
  await receiver.close();
  if (exitAtEnd) {
    await stop();
    return;
  }
  console.log(dim('\n(The service keeps running with the demo data in .demo/; Ctrl-C stops it.)'));
  await new Promise((r) => service.proc.once('exit', r));
}

main().catch(async (e: unknown) => {
  console.error(`\n${red('Demo failed:')} ${(e as Error).message}`);
  await stopService().catch(() => {});
  process.exit(1);
});
