import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeTotals, siiDate, SUPPORTED_TIPOS_DTE, type TipoDte } from '../../../src/dte/index.ts';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * Issue 14's property over HTTP: random requests of every type and feature, valid and mutated.
 * Every request the API accepts gives XML that the official schemas accept (check-sii-xml:
 * xmllint, xmlsec1, TED and CAF); every one it refuses is a 4xx with a code that leaves the folio
 * inventory exactly as it was; none is a 5xx.
 */
type Body = Record<string, unknown>;
type Line = Record<string, unknown>;
const today = siiDate(new Date());
const BOLETAS = new Set([39, 41]);
const NOTES = new Set([56, 61, 111, 112]);
const EXPORTS = new Set([110, 111, 112]);
/** Types whose schema has line and global discounts and surcharges. */
const ADJUSTABLE = new Set([33, 34, 46, 52, 56, 61]);

// Text with what clients really send: accents, XML specials, typographic quotes and dashes (converted).
const word = fc.constantFrom('Servicio', 'Ñandú', 'O’Higgins', '“Premium”', 'A & B', '<caja>', 'año—2026', 'Café', 'x', 'Ítem #4');
const text = (max: number) =>
  fc
    .array(word, { minLength: 1, maxLength: 4 })
    .map((w) => w.join(' '))
    .map((s) => s.slice(0, max));

const lineFeatures = fc.record(
  {
    codigos: fc.constant([{ tipo: 'INT1', valor: 'SKU-1' }]),
    unidad: fc.constantFrom('UN', 'KG', 'HR'),
    descuentoPct: fc.integer({ min: 1, max: 50 }),
    recargoMonto: fc.integer({ min: 1, max: 500 }),
    descripcion: text(200),
  },
  { requiredKeys: [] },
);

const features = fc.record(
  {
    lineExtras: lineFeatures,
    nombre: text(80),
    descuentoGlobal: fc.integer({ min: 1, max: 20 }),
    formaPago: fc.constantFrom(1, 2, 3),
    pago: fc.constant(true),
    medioPago: fc.constantFrom('CH', 'EF', 'TC', 'PE'),
    terminosPago: text(100),
    contacto: text(80),
    emisor: fc.record({ telefono: fc.constant('+56 2 2345 6789'), sucursal: fc.constant('Casa Matriz') }, { requiredKeys: [] }),
    impuesto: fc.constantFrom(24, 25, 26, 27, 271),
    guia: fc.record({ indTraslado: fc.integer({ min: 1, max: 9 }), tipoDespacho: fc.constantFrom(1, 2, 3) }),
  },
  { requiredKeys: [] },
);

type Features = typeof features extends fc.Arbitrary<infer T> ? T : never;

/** A valid request of `tipo` with the drawn features, its amounts computed the way the API requires. */
function validBody(tipo: TipoDte, f: Features): Body {
  const base = dteBody(tipo);
  const extras: Body = {};
  const lines = (base.detalle as Line[]).map(({ montoItem: _m, ...l }) => ({ ...l }));
  if (f.nombre) lines[0] = { ...lines[0], nombre: f.nombre };
  if (f.lineExtras) {
    const { descuentoPct, recargoMonto, ...rest } = f.lineExtras;
    lines[0] = { ...lines[0], ...rest };
    if (ADJUSTABLE.has(tipo)) {
      if (descuentoPct !== undefined) lines[0] = { ...lines[0], descuentoPct };
      if (recargoMonto !== undefined) lines[0] = { ...lines[0], recargoMonto };
    }
  }
  // Additional taxes on the line (33, 56, 61), the IVA withheld in full on a factura de compra (46).
  if (f.impuesto && [33, 56, 61].includes(tipo) && !lines[0]!.exento) lines[0] = { ...lines[0], impuestoAdicional: [f.impuesto] };
  if (f.impuesto && tipo === 46) lines[0] = { ...lines[0], impuestoAdicional: [15] };
  if (f.descuentoGlobal && ADJUSTABLE.has(tipo)) extras.descuentosGlobales = [{ tipo: 'descuento', valor: f.descuentoGlobal, unidad: '%' }];
  if (!BOLETAS.has(tipo)) {
    if (f.formaPago && !EXPORTS.has(tipo)) extras.formaPago = f.formaPago;
    if (f.medioPago) extras.medioPago = f.medioPago;
    if (f.terminosPago) extras.terminosPago = f.terminosPago;
    if (f.pago) extras.fechaVencimiento = today;
    if (f.contacto && base.receptor) extras.receptor = { ...(base.receptor as Body), contacto: f.contacto };
  }
  if (f.emisor) extras.emisor = f.emisor;
  if (tipo === 52 && f.guia) {
    extras.indTraslado = f.guia.indTraslado;
    extras.tipoDespacho = f.guia.tipoDespacho;
  }
  const body: Body = { ...base, ...extras };
  const totals = computeTotals(tipo, lines as never, {
    descuentosGlobales: body.descuentosGlobales as never,
    comisiones: body.comisiones as never,
    moneda: (body.exportacion as { moneda?: string } | undefined)?.moneda,
    otraMoneda: (body.exportacion as { otraMoneda?: never } | undefined)?.otraMoneda,
  });
  body.detalle = lines.map((l, i) => ({ ...l, montoItem: totals.lineas[i] }));
  body.montoTotal = totals.montoTotal;
  if (f.pago && !BOLETAS.has(tipo) && !EXPORTS.has(tipo) && totals.montoTotal > 0)
    body.pagos = [{ fecha: today, monto: totals.montoTotal, glosa: 'Pago único' }];
  return body;
}

/** A mutation that breaks one rule the SII (or its schema) enforces; each applies to some types. */
const MUTATIONS: { name: string; applies: (t: TipoDte) => boolean; mutate: (b: Body) => Body }[] = [
  { name: 'total off by one', applies: () => true, mutate: (b) => ({ ...b, montoTotal: (b.montoTotal as number) + 1 }) },
  {
    name: 'receptor RUT of 9 digits',
    applies: (t) => !BOLETAS.has(t) && !EXPORTS.has(t),
    mutate: (b) => ({ ...b, receptor: { ...(b.receptor as Body), rut: '100000000-7' } }),
  },
  {
    name: 'consumidor final on a factura',
    applies: (t) => !BOLETAS.has(t) && !EXPORTS.has(t),
    mutate: (b) => ({ ...b, receptor: { ...(b.receptor as Body), rut: '66.666.666-6' } }),
  },
  {
    name: 'receptor without giro',
    applies: (t) => [33, 34, 43, 46, 52].includes(t),
    mutate: (b) => {
      const { giro: _g, ...r } = b.receptor as Body;
      return { ...b, receptor: r };
    },
  },
  {
    name: 'character outside Latin-1',
    applies: (t) => !BOLETAS.has(t),
    mutate: (b) => ({ ...b, receptor: { ...(b.receptor as Body), razonSocial: 'Comercial 🚀 Ltda.' } }),
  },
  {
    name: 'reference dated tomorrow',
    applies: (t) => NOTES.has(t),
    mutate: (b) => ({
      ...b,
      referencias: (b.referencias as Body[]).map((r) => ({ ...r, fechaRef: siiDate(new Date(Date.now() + 86_400_000)) })),
    }),
  },
  {
    name: 'two cancellations',
    applies: (t) => NOTES.has(t),
    mutate: (b) => {
      const r = (b.referencias as Body[])[0]!;
      return {
        ...b,
        referencias: [
          { ...r, codRef: 1 },
          { ...r, folioRef: 2, codRef: 1 },
        ],
      };
    },
  },
  {
    name: 'export to a Chilean RUT',
    applies: (t) => EXPORTS.has(t),
    mutate: (b) => ({ ...b, receptor: { ...(b.receptor as Body), rut: '77.777.777-7' } }),
  },
  {
    name: 'currency not in the table',
    applies: (t) => EXPORTS.has(t),
    mutate: (b) => ({ ...b, exportacion: { ...(b.exportacion as Body), moneda: 'DOGECOIN' } }),
  },
  { name: 'unknown field', applies: () => true, mutate: (b) => ({ ...b, folio: 7 }) },
  { name: 'no lines', applies: () => true, mutate: (b) => ({ ...b, detalle: [] }) },
  {
    name: 'line name too long',
    applies: () => true,
    mutate: (b) => ({ ...b, detalle: (b.detalle as Line[]).map((l, i) => (i === 0 ? { ...l, nombre: 'x'.repeat(81) } : l)) }),
  },
  {
    name: 'discount above the line',
    applies: (t) => ADJUSTABLE.has(t),
    mutate: (b) => ({
      ...b,
      detalle: (b.detalle as Line[]).map((l, i) => (i === 0 ? { ...l, descuentoPct: undefined, descuentoMonto: 10 ** 10 } : l)),
    }),
  },
];

describeEachDb('property over HTTP: accepted → schema-valid XML; refused → no folio spent', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  const accepted: { name: string; bytes: Buffer }[] = [];

  beforeAll(async () => {
    // Hundreds of requests in a few seconds: the API's own rate limits have their own tests.
    const unlimited = { RATE_LIMIT_BURST: '100000', ACCOUNT_RATE_LIMIT_BURST: '100000' };
    t = await startIssuingApp(backend, { env: unlimited });
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    for (const tipo of SUPPORTED_TIPOS_DTE) await requestFolios(t, key, tenantId, tipo, 40);
  });
  afterAll(() => t?.close());

  const inventory = async () => {
    const r = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` });
    expect(r.statusCode).toBe(200);
    return r.json();
  };
  const post = (body: Body) => t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: body });

  it('random valid requests of every type and feature are issued', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SUPPORTED_TIPOS_DTE), features, async (tipo, f) => {
        const body = validBody(tipo, f);
        const r = await post(body);
        expect(r.statusCode, `${tipo} ${JSON.stringify(body)} → ${r.body}`).toBe(201);
        const xml = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${r.json().id}/xml` });
        accepted.push({ name: `T${tipo}F${r.json().folio}.xml`, bytes: xml.rawPayload });
      }),
      { numRuns: 60 },
    );
  });

  /** Posts a mutated request: a 4xx with a code and the inventory unchanged, or (rarely) a good document. */
  const postMutated = async (tipo: TipoDte, f: Features, m: (typeof MUTATIONS)[number]): Promise<string | undefined> => {
    const before = await inventory();
    const r = await post(m.mutate(validBody(tipo, f)));
    const label = `${tipo} "${m.name}" → ${r.statusCode} ${r.body}`;
    if (r.statusCode === 201) {
      // Not every mutation breaks every drawn body (e.g. a discount on a 0 line): then the
      // document must be as good as any accepted one.
      const xml = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${r.json().id}/xml` });
      accepted.push({ name: `T${tipo}F${r.json().folio}-m.xml`, bytes: xml.rawPayload });
      return undefined;
    }
    expect([400, 409, 422], label).toContain(r.statusCode);
    expect(r.json().error.code, label).toMatch(/^[a-z_]+$/);
    expect(await inventory(), label).toEqual(before);
    return r.json().error.code as string;
  };

  it('mutated requests are refused with a 4xx and a code, and the folio inventory does not move', async () => {
    const cases = fc
      .constantFrom(...MUTATIONS)
      .chain((m) => fc.tuple(fc.constantFrom(...SUPPORTED_TIPOS_DTE.filter((t) => m.applies(t))), features, fc.constant(m)));
    await fc.assert(
      fc.asyncProperty(cases, async ([tipo, f, m]) => {
        await postMutated(tipo, f, m);
      }),
      { numRuns: 80 },
    );
  });

  it('each mutation, on each type it applies to, with no extra feature, is refused', async () => {
    const refused: string[] = [];
    for (const m of MUTATIONS)
      for (const tipo of SUPPORTED_TIPOS_DTE.filter((t) => m.applies(t))) {
        const code = await postMutated(tipo, {}, m);
        refused.push(`${m.name} ${tipo}: ${code ?? 'accepted'}`);
      }
    expect(refused.filter((r) => r.endsWith('accepted'))).toEqual([]);
  });

  it('every accepted document passes check-sii-xml', () => {
    expect(accepted.length).toBeGreaterThanOrEqual(60);
    // The drawn features really reached the documents checked.
    const all = accepted.map((f) => f.bytes.toString('latin1')).join('\n');
    for (const el of [
      'CdgItem',
      'UnmdItem',
      'DescuentoPct',
      'RecargoMonto',
      'DscRcgGlobal',
      'MntPagos',
      'TermPagoGlosa',
      'MedioPago',
      'CodImpAdic',
      'ImptoReten',
    ])
      expect(all, el).toContain(`<${el}>`);
    for (const el of ['IndTraslado', 'TipoDespacho', 'Telefono', 'Sucursal', 'Contacto', 'FchVenc']) expect(all, el).toContain(`<${el}>`);
    const check = runCheckSiiXml(accepted, { cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem });
    expect(check.failures, check.output).toEqual([]);
  });
});
