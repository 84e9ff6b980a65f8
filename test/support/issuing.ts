import { computeTotals, siiDate, type TipoDte } from '../../src/dte/index.ts';
import { startBackground } from '../../src/worker.ts';
import { startTestApp, uniqueRut, validTenant, type TestApp } from './app.ts';
import type { Backend } from './db.ts';
import { certificateForm, makeCert, modernPfx, ymd } from './pfx.ts';

/**
 * Issuing tests: an app with its background worker running (folio requests, uploads and polls
 * are jobs), tenants made ready through the real credential routes, and valid DTE bodies for
 * every supported type.
 */
export const CERT_PASSWORD = 'Clave-Firma-1';
export const CERT_RUT = '12345678-5';
export const SANDBOX_API_KEY = 'sandbox-ok-key-0001';

export interface IssuingApp extends TestApp {
  stopBackground(): Promise<void>;
}

export async function startIssuingApp(backend: Backend, opts: Parameters<typeof startTestApp>[1] = {}): Promise<IssuingApp> {
  const t = await startTestApp(backend, { ...opts, env: { FOLIO_REQUEST_WAIT: '10s', DTE_SEND_WAIT: '20s', ...opts.env } });
  const bg = startBackground(t.ctx, { pollMs: 25 });
  let stopped = false;
  const stopBackground = async () => {
    if (stopped) return;
    stopped = true;
    await bg.stop();
  };
  return {
    ...t,
    stopBackground,
    async close() {
      await stopBackground();
      await t.close();
    },
  };
}

let cert: ReturnType<typeof makeCert> | undefined;
let pfx: Buffer | undefined;
export const testCertificate = () => {
  cert ??= makeCert({ rut: CERT_RUT, commonName: 'Firmante de Prueba' });
  pfx ??= modernPfx(cert, CERT_PASSWORD);
  return { cert, pfx };
};

/**
 * A company RUT of its own: the SII (and the emulator) number folios per RUT, so tenants that
 * share one would share the folio sequence.
 */
export const randomRut = uniqueRut;

/** A tenant with both credentials configured through the API (status active). */
export async function readyTenant(t: TestApp, key: string, over: Record<string, unknown> = {}, apiKey = SANDBOX_API_KEY): Promise<string> {
  const created = await t.call(key, {
    method: 'POST',
    url: '/api/v1/tenants',
    payload: validTenant({ acteco: [620200], rutEmpresa: randomRut(), ...over }),
  });
  if (created.statusCode !== 201) throw new Error(`tenant: ${created.statusCode} ${created.body}`);
  const tenantId = created.json().id as string;
  // A direct tenant (provider "sii") needs only its certificate.
  if (over.provider !== 'sii') {
    const k = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload: { apiKey } });
    if (k.statusCode !== 200) throw new Error(`api key: ${k.statusCode} ${k.body}`);
  }
  const { cert: c, pfx: file } = testCertificate();
  const form = certificateForm(
    {
      password: CERT_PASSWORD,
      rutCertificado: '12.345.678-5',
      nombreTitular: 'Firmante de Prueba',
      fechaVencimiento: ymd(c.notAfter),
      esPrincipal: 'true',
    },
    { data: file },
  );
  const up = await t.call(key, {
    method: 'POST',
    url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
    payload: form.payload,
    headers: form.headers,
  });
  if (up.statusCode !== 201) throw new Error(`certificate: ${up.statusCode} ${up.body}`);
  return tenantId;
}

export async function requestFolios(t: TestApp, key: string, tenantId: string, tipoDte: number, cantidad = 20) {
  const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/folios/request`, payload: { tipoDte, cantidad } });
  if (r.statusCode !== 201) throw new Error(`folios ${tipoDte}: ${r.statusCode} ${r.body}`);
  return r.json() as { id: string; rango: { desde: number; hasta: number } };
}

interface Line {
  nombre: string;
  cantidad: number;
  precioUnitario: number;
  exento?: boolean;
  tipoDocLiquidado?: number;
}

/** A valid create body for a type; amounts computed the way the API requires. */
export function dteBody(tipoDte: TipoDte, over: Record<string, unknown> = {}, now = new Date()): Record<string, unknown> {
  let lines: Line[] = [
    { nombre: 'Servicio de desarrollo', cantidad: 10, precioUnitario: 35000 },
    { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5 },
    { nombre: 'Capacitación', cantidad: 2, precioUnitario: 45000, exento: true },
  ];
  if (tipoDte === 34 || tipoDte === 41) lines = [{ nombre: 'Asesoría exenta', cantidad: 3, precioUnitario: 25000 }];
  if (tipoDte === 39)
    lines = [
      { nombre: 'Café grande', cantidad: 2, precioUnitario: 2490 },
      { nombre: 'Medialuna', cantidad: 3, precioUnitario: 890 },
    ];
  const body: Record<string, unknown> = {
    tipoDte,
    receptor: {
      rut: '77.777.777-7',
      razonSocial: 'Comercial Ñandú & Cía. Limitada',
      giro: 'Comercio al por menor',
      direccion: "O'Higgins 123",
      comuna: 'Santiago',
      ciudad: 'Santiago',
    },
    ...(tipoDte === 56 || tipoDte === 61
      ? { referencias: [{ tipoDocRef: 33, folioRef: 1, fechaRef: siiDate(now), codRef: 3, razonRef: 'Corrige montos' }] }
      : {}),
    ...(tipoDte === 43 ? { comisiones: [{ tipo: 'comision', glosa: 'Comisión 5 %', tasa: 5, montoNeto: 17500 }] } : {}),
    ...(tipoDte >= 110
      ? {
          receptor: {
            rut: '55.555.555-5',
            razonSocial: 'Globex Corporation',
            giro: 'Import and export',
            direccion: '1 Main Street, Springfield',
            ciudad: 'Springfield',
            extranjero: { nacionalidad: '225' },
          },
          exportacion: { moneda: 'DOLAR USA', otraMoneda: { moneda: 'PESO CL', tipoCambio: 950.25 } },
          indServicio: 4,
        }
      : {}),
    ...(tipoDte === 111 || tipoDte === 112
      ? { referencias: [{ tipoDocRef: 110, folioRef: 1, fechaRef: siiDate(now), codRef: 3, razonRef: 'Corrige montos' }] }
      : {}),
    ...over,
  };
  if (tipoDte === 43) lines = lines.map((l) => ({ ...l, tipoDocLiquidado: l.exento ? 34 : 33 }));
  if (tipoDte >= 110)
    lines = [
      { nombre: 'Consulting services', cantidad: 10, precioUnitario: 120.25 },
      { nombre: 'License', cantidad: 3, precioUnitario: 33.3333 },
    ];
  const detalle = (over.detalle as Line[] | undefined) ?? lines;
  const totals = computeTotals(tipoDte, detalle, {
    comisiones: body.comisiones as { montoNeto: number }[] | undefined,
    moneda: (body.exportacion as { moneda?: string } | undefined)?.moneda,
  });
  body.detalle = detalle.map((l, i) => ({ ...l, montoItem: totals.lineas[i] }));
  body.montoTotal = 'montoTotal' in over ? over.montoTotal : totals.montoTotal;
  if (tipoDte === 39 || tipoDte === 41) {
    if (!('receptor' in over)) delete body.receptor;
  }
  return body;
}

/** Polls GET /api/v1/dte/{id}/status until the DTE leaves the in-flight states. */
export async function waitFinal(t: TestApp, key: string, dteId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = (await t.call(key, { method: 'GET', url: `/api/v1/dte/${dteId}/status` })).json();
    if (!['created', 'sending', 'sent'].includes(s.status))
      return s as { status: string; sii: { estado: string | null; glosa: string | null }; trackId: string | null };
    if (Date.now() > deadline) throw new Error(`DTE ${dteId} still ${s.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { ymd };
