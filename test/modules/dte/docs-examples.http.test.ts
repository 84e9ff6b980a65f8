import { afterAll, beforeAll, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { siiDate } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * docs/dte.md may never drift from the API: every create request it shows — each fenced ```json or
 * ```jsonc block that contains "tipoDte", and each `curl -X POST …/dte -d '…'` — is POSTed to a
 * real app over HTTP with a ready tenant and must answer 201 (the API recomputes montoItem and
 * montoTotal and refuses any other). A block that shows something else (a record, an event) is
 * marked with `<!-- docs-examples: skip -->` on the line before it.
 *
 * Dates: an example that gives `fechaEmision` is issued today, with every other date in it
 * (fechaVencimiento, pagos, fechaRef) moved by the same number of days, so a documented due date
 * stays after its document's date whenever the test runs (the API refuses a document dated before
 * its folios were authorised, which is today here).
 */
const DOC = path.join(import.meta.dirname, '..', '..', '..', 'docs', 'dte.md');
const SKIP = '<!-- docs-examples: skip -->';

interface DocExample {
  name: string;
  line: number;
  body: Record<string, unknown>;
}

/** Removes // comments outside strings (jsonc). */
function stripComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return out;
}

function extractExamples(markdown: string): DocExample[] {
  const lines = markdown.split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const lang = open[1]!;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    const text = lines.slice(start + 1, end).join('\n');
    const marked =
      lines
        .slice(0, start)
        .reverse()
        .find((l) => l.trim() !== '')
        ?.trim() === SKIP;
    i = end;
    if (marked) continue;
    let json: string | undefined;
    if ((lang === 'json' || lang === 'jsonc') && text.includes('"tipoDte"')) json = lang === 'jsonc' ? stripComments(text) : text;
    if (lang === 'sh' && /curl -X POST "[^"]*\/dte"/.test(text)) {
      const d = /-d '([\s\S]*)'\s*$/.exec(text);
      if (d) json = d[1]!.replaceAll(`'\\''`, `'`);
    }
    if (json === undefined) continue;
    const comment = /^\s*\/\/\s*(.*)$/m.exec(text)?.[1];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(json) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`docs/dte.md:${start + 1}: not valid JSON (${(e as Error).message})`, { cause: e });
    }
    examples.push({ name: `docs/dte.md:${start + 1}${comment ? ` (${comment})` : ''}`, line: start + 1, body });
  }
  return examples;
}

/** Issued today; every other date moved by the same number of days. */
function datedToday(body: Record<string, unknown>, today: string): Record<string, unknown> {
  const anchor = body.fechaEmision;
  if (typeof anchor !== 'string') return body;
  const shift = Date.parse(today) - Date.parse(anchor);
  const move = (v: unknown): unknown => {
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return new Date(Date.parse(v) + shift).toISOString().slice(0, 10);
    if (Array.isArray(v)) return v.map(move);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, move(x)]));
    return v;
  };
  return move(body) as Record<string, unknown>;
}

const examples = extractExamples(fs.readFileSync(DOC, 'utf8'));
const ALL_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112];

it('docs/dte.md shows a create request for every document type', () => {
  const types = new Set(examples.map((e) => e.body.tipoDte));
  expect(ALL_TYPES.filter((t) => !types.has(t))).toEqual([]);
});

/** Every `path=value` and `path` in the examples (`detalle[].indExe=3`, `exportacion.aduana.bultos`). */
function shown(): Set<string> {
  const out = new Set<string>();
  const visit = (v: unknown, path: string) => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, `${path}[]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k);
    else out.add(`${path}=${String(v)}`);
    out.add(path);
  };
  for (const e of examples) visit(e.body, '');
  return out;
}

it('docs/dte.md shows every feature of the document model (docs/decisions.md §11)', () => {
  const features = [
    'detalle[].codigos[].tipo',
    'detalle[].descuentoPct',
    'detalle[].descuentoMonto',
    'detalle[].recargoPct',
    'detalle[].impuestoAdicional',
    'detalle[].retenedor',
    ...[1, 2, 3, 4, 5, 6].map((i) => (i === 1 ? 'detalle[].exento=true' : `detalle[].indExe=${i}`)),
    'descuentosGlobales[].tipo=descuento',
    'descuentosGlobales[].tipo=recargo',
    'descuentosGlobales[].unidad=%',
    'descuentosGlobales[].unidad=$',
    'descuentosGlobales[].exento=true',
    'montoBruto=true',
    'indMontoNeto=true',
    'indServicio',
    'formaPago',
    'fechaVencimiento',
    'medioPago',
    'terminosPago',
    'terminosPagoDias',
    'pagos[].fecha',
    'indTraslado',
    'tipoDespacho',
    'transporte.patente',
    'transporte.rutChofer',
    'referencias[].codRef=1',
    'referencias[].indGlobal=true',
    'referencias[].rutOtro',
    'receptor.extranjero.nacionalidad',
    'exportacion.otraMoneda.tipoCambio',
    'exportacion.aduana.bultos[].tipo',
    'comisiones[].montoNeto',
    'emisor.sucursal',
    'emisor.unidadSii',
  ];
  const seen = shown();
  expect(features.filter((f) => !seen.has(f))).toEqual([]);
});

describeEachDb('the create requests of docs/dte.md over HTTP', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    const counts = new Map<number, number>();
    for (const e of examples) counts.set(Number(e.body.tipoDte), (counts.get(Number(e.body.tipoDte)) ?? 0) + 1);
    for (const [tipo, n] of counts) await requestFolios(t, key, tenantId, tipo, n + 2);
  });
  afterAll(() => t?.close());

  it(`each answers 201 (${examples.length} examples)`, async () => {
    const today = siiDate(new Date());
    const failures: string[] = [];
    for (const e of examples) {
      const res = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: datedToday(e.body, today) });
      if (res.statusCode !== 201) failures.push(`${e.name}: ${res.statusCode} ${res.body}`);
    }
    expect(failures).toEqual([]);
    expect(examples.length).toBeGreaterThanOrEqual(ALL_TYPES.length);
  });
});
