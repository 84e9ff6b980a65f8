import crypto from 'node:crypto';

/**
 * Example values for the API reference's responses (src/http/openapi.ts puts one `example` on each
 * response). The route schemas give a few examples of their own; every other field gets a plausible
 * value by its name (a RUT for `rutEmpresa`, a folio for `folio`) or its format, so the reference
 * never shows "string". A field nobody has given a value is reported in `missing`, and
 * test/http/docs.http.test.ts fails on it: a new response field needs an entry here or `examples`
 * in its schema.
 */

type Json = Record<string, unknown>;

/** A stable, well-formed v4 UUID per field name: the same id reads the same across the reference. */
export const uuidFor = (name: string): string => {
  const h = crypto.createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const AT = '2026-11-27T14:30:00.000Z';
const DAY = '2026-11-27';

/** By field name, or `name:type` where one name carries different types in different schemas. */
const BY_NAME: Record<string, unknown> = {
  // Time
  acceptanceDeadline: '2026-12-05T14:30:00.000Z',
  at: AT,
  attemptedAt: AT,
  completedAt: '2026-11-27T14:30:02.000Z',
  createdAt: AT,
  disabledAt: null,
  expiresAt: '2026-12-04T14:30:00.000Z',
  lastUsedAt: '2026-11-27T14:29:00.000Z',
  lastVerified: AT,
  nextAttemptAt: '2026-11-27T14:30:30.000Z',
  receivedAt: AT,
  registeredAt: '2026-11-27T14:31:00.000Z',
  revokedAt: null,
  sentAt: AT,
  timestamp: AT,
  updatedAt: AT,
  fecha: DAY,
  fechaAutorizacion: '2026-11-20',
  fechaEmision: DAY,
  fechaRef: '2026-11-20',
  fechaResolucion: '2014-08-22',
  fechaVencimiento: '2027-06-30',
  vencimiento: '2027-05-20',
  // Companies, people, addresses
  rut: '76192083-9',
  rutCertificado: '11.111.111-1',
  rutEmisor: '77777777-7',
  rutEmpresa: '76.192.083-9',
  rutEnvia: '11111111-1',
  rutOtro: '96790240-3',
  rutReceptor: '76192083-9',
  razonSocial: 'Servicios Ejemplo SpA',
  giro: 'Desarrollo de software',
  direccion: 'Av. Providencia 1234',
  comuna: 'Providencia',
  ciudad: 'Santiago',
  contacto: 'Ana Rojas',
  correo: 'dte@proveedor.cl',
  email: 'facturacion@ejemplo.cl',
  telefono: '+56 2 2345 6789',
  sucursal: 'Casa matriz',
  codigoSucursal: 81_234_567,
  unidadSii: 'SANTIAGO ORIENTE',
  vendedor: 'V-12',
  nombreTitular: 'María Pérez',
  nacionalidad: '997',
  numeroId: 'P1234567',
  to: 'compras@cliente.cl',
  acteco: 620_200,
  numeroResolucion: 80,
  ambiente: 'certificacion',
  name: 'facturación',
  description: 'ERP de producción',
  // Keys and secrets (shown once; these are made up)
  key: 'sk_live_4fGx2mQb9TzR7wLk3VnP8sYc1HdJ6aEu0BiNoKtXyZq',
  prefix: 'sk_live_4fGx',
  secret: 'whsec_MfKQ9r8GgnGq4Qfz4xWZ7J2kqL1c0vXoPp3e6Yd5Ns8=',
  token: 'act_Qm9k3VbT7xLr2PfZ8wNcY5sHd1JgE6aU',
  // Documents
  tipoDte: 33,
  folio: 1234,
  folioRef: '1198',
  tipoDocRef: '33',
  tipoDocLiquidado: '33',
  codRef: 3,
  razonRef: 'Corrige montos',
  nombre: 'Servicio de desarrollo',
  cantidad: 10,
  precioUnitario: 35_000,
  montoItem: 350_000,
  montoNeto: 350_000,
  montoExento: 90_000,
  iva: 66_500,
  ivaRetenido: 0,
  ivaNoRetenido: 0,
  montoTotal: 506_500,
  montoNoFacturable: 0,
  montoBruto: false,
  monto: 506_500,
  'monto:number': 12_000,
  tasa: 19,
  'tipo:integer': 15,
  'tipo:string': 'RespuestaDTE',
  'valor:number': 10,
  'valor:string': '7801234567890',
  unidad: '%',
  descuentoPct: 10,
  descuentoMonto: 35_000,
  recargoPct: 5,
  recargoMonto: 17_500,
  exento: false,
  indExe: 1,
  indGlobal: false,
  indMontoNeto: false,
  indServicio: 3,
  indTraslado: 1,
  tipoDespacho: 2,
  formaPago: 2,
  medioPago: 'TC',
  terminosPago: '30 días',
  terminosPagoDias: 30,
  moneda: 'DOLAR USA',
  tipoCambio: 950.5,
  retenedor: false,
  impuestoAdicional: 271,
  trackId: '0241256873',
  estado: 'EPR',
  glosa: 'Envío procesado',
  descripcion: 'Documento recibido por el SII',
  codigo: 0,
  accion: 'ACD',
  codEnvio: 1,
  estadoRecepDte: 0,
  estadoRecepEnv: 0,
  envioDteId: 'SetDoc',
  nombreEnvio: 'EnvioDTE_76192083-9_20261127.xml',
  index: 0,
  n: 1,
  registeredAtSii: true,
  respuestaXml: '<?xml version="1.0" encoding="ISO-8859-1"?><RespuestaDTE version="1.0">…</RespuestaDTE>',
  path: '/api/v1/tenants/{tenantId}/received/envios/{envioId}/respuesta',
  // Folios
  desde: 1,
  hasta: 50,
  disponibles: 41,
  usados: 9,
  total: 50,
  porcentaje: 82,
  siguienteFolio: 10,
  lowThreshold: 10,
  // Logos and files
  bytes: 18_432,
  width: 480,
  height: 160,
  format: 'png',
  // Webhooks and deliveries
  url: 'https://example.com/webhooks/dte',
  event: 'dte.status.changed',
  eventType: 'dte.status.changed',
  filterTypes: 'dte.status.changed',
  disabled: false,
  disabledReason: null,
  attemptNumber: 1,
  attempts: 1,
  maxAttempts: 5,
  durationMs: 182,
  responseStatusCode: 200,
  responseBody: 'ok',
  error: null,
  lastError: null,
  skipReason: null,
  messageId: '<3f1c9a2e@dte.example.com>',
  smtpResponse: '250 2.0.0 OK: queued as 4F3A2B1C',
  code: 'smtp_rejected',
  message: '550 5.1.1 mailbox unavailable',
  // Lists
  iterator: 'eyJ0IjoiMjAyNi0xMS0yN1QxNDozMDowMC4wMDBaIiwiaWQiOiIzZjZjIn0',
  done: true,
  // Readiness flags
  configured: true,
  ready: true,
  esPrincipal: true,
  // Test mode (docs/design.md "Test mode")
  livemode: true,
};

/** A path parameter `tipoDte` is text ("33") where a body's is a number (33). */
const asType = (v: unknown, type: unknown): unknown => (type === 'string' && typeof v === 'number' ? String(v) : v);

export interface ResponseExample {
  value: unknown;
  /** Paths (like `Tenant.credentials.ready`) of fields without a schema example or a value here. */
  missing: string[];
}

const typeOf = (s: Json): string | undefined =>
  Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string);

/** A whole example value for a response schema: every property, required or not. */
export function responseExample(schema: Json | undefined, schemas: Record<string, Json>): ResponseExample {
  const missing: string[] = [];
  const walk = (s: Json | undefined, name: string, where: string, depth: number): unknown => {
    if (!s || depth > 12) return undefined;
    if (typeof s.$ref === 'string') {
      const ref = s.$ref.split('/').pop()!;
      return walk(schemas[ref], name, ref, depth + 1);
    }
    if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
    if (s.example !== undefined) return s.example;
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null) ?? s.enum[0];
    const variants = (s.anyOf ?? s.oneOf) as Json[] | undefined;
    if (Array.isArray(variants)) {
      // A nullable field shows a value, not null, so the reader learns its shape; except where null
      // is what a success looks like (no `error` on a request that worked).
      if (name in BY_NAME && BY_NAME[name] === null) return null;
      const real = variants.filter((v) => v.type !== 'null');
      return walk(real[0] ?? variants[0], name, where, depth + 1);
    }
    if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((v) => walk(v as Json, name, where, depth + 1) ?? {}));
    const type = typeOf(s);
    if (type === 'null') return null;
    if (type === 'object') {
      const props = (s.properties ?? {}) as Record<string, Json>;
      if (Object.keys(props).length === 0) return name in BY_NAME ? BY_NAME[name] : {};
      const out: Json = {};
      for (const [k, v] of Object.entries(props)) out[k] = walk(v, k, `${where}.${k}`, depth + 1);
      return out;
    }
    if (type === 'array') {
      const item = walk(s.items as Json | undefined, name, `${where}[]`, depth + 1);
      return item === undefined ? [] : [item];
    }
    if (`${name}:${type}` in BY_NAME) return asType(BY_NAME[`${name}:${type}`], type);
    if (name in BY_NAME) return asType(BY_NAME[name], type);
    if (s.default !== undefined) return s.default;
    if (type === 'string') {
      if (s.format === 'uuid') return uuidFor(name);
      if (s.format === 'date-time') return AT;
      if (s.format === 'date') return DAY;
      if (s.format === 'email') return 'facturacion@ejemplo.cl';
      if (s.format === 'uri') return 'https://example.com';
    }
    missing.push(`${where} (${type ?? 'untyped'})`);
    return type === 'string' ? `<${name}>` : type === 'boolean' ? true : type === 'integer' || type === 'number' ? 1 : undefined;
  };
  const value = walk(schema, 'value', 'response', 0);
  return { value, missing };
}

/** A value for a schema, from its examples, default, or type: enough for a readable sample body. */
export function exampleOf(schema: Json | undefined, schemas: Record<string, Json>, depth = 0, name = 'value'): unknown {
  if (!schema || depth > 6) return undefined;
  if (typeof schema.$ref === 'string') return exampleOf(schemas[schema.$ref.split('/').pop()!], schemas, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(variants)) return exampleOf(variants.find((v) => v.type !== 'null') ?? variants[0], schemas, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => exampleOf(s as Json, schemas, depth + 1) ?? {}));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  // A known field name reads better than a placeholder ("76.192.083-9", not "<rutEmpresa>").
  if (type !== 'object' && type !== 'array') {
    if (`${name}:${String(type)}` in BY_NAME) return asType(BY_NAME[`${name}:${String(type)}`], type);
    if (name in BY_NAME && BY_NAME[name] !== null) return asType(BY_NAME[name], type);
  }
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Json = {};
      for (const [k, v] of Object.entries(props)) {
        // Required fields only: the smallest body the route accepts; the reference lists the rest.
        if (!required.has(k)) continue;
        const value = exampleOf(v, schemas, depth + 1, k);
        if (value !== undefined) out[k] = value;
      }
      return out;
    }
    case 'array': {
      const item = exampleOf(schema.items as Json | undefined, schemas, depth + 1, name);
      return item === undefined ? [] : [item];
    }
    case 'string':
      if (schema.format === 'uuid') return '00000000-0000-0000-0000-000000000000';
      if (schema.format === 'date-time') return '2026-01-01T12:00:00Z';
      if (schema.format === 'email') return 'ana@example.com';
      if (schema.format === 'uri') return 'https://example.com/webhooks';
      return `<${name}>`;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}
