import { exampleOf } from './openapi-examples.ts';

/**
 * The TypeScript SDK sample of one operation (packages/sdk), beside the curl one in `x-codeSamples`.
 * Generated from the same operation object, so it names the same path, parameters and body; the
 * samples type-check against the SDK (test/tooling/sdk-samples.test.ts compiles every one).
 */

type Json = Record<string, unknown>;

interface SampleOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Json }[];
  requestBody?: { content?: Record<string, { schema?: Json; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

const BINARY = /^(application\/(pdf|xml|octet-stream)|image\/)/;

/** Turns JSON into a TypeScript object literal (unquoted keys where they are identifiers), indented. */
export function tsLiteral(value: unknown, indent = 0): string {
  const flat = tsFlat(value);
  if (flat.length + indent * 2 <= 80) return flat;
  const pad = (n: number) => '  '.repeat(n);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const simple = value.every((v) => v === null || typeof v !== 'object');
    if (simple) return `[${value.map((v) => tsLiteral(v)).join(', ')}]`;
    return `[\n${value.map((v) => pad(indent + 1) + tsLiteral(v, indent + 1)).join(',\n')},\n${pad(indent)}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, v]) => `${pad(indent + 1)}${keyText(k)}: ${tsLiteral(v, indent + 1)}`).join(',\n')},\n${pad(indent)}}`;
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

const keyText = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`);

/** The same literal on one line: `{ path: { tenantId: '<tenantId>' } }`. */
function tsFlat(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tsFlat).join(', ')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${keyText(k)}: ${tsFlat(v)}`).join(', ')} }` : '{}';
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

const isList = (op: SampleOperation): boolean => {
  const schema = op.responses?.['200']?.content?.['application/json']?.schema;
  const props = (schema?.properties ?? {}) as Json;
  return 'data' in props && 'iterator' in props && 'done' in props;
};

const binaryResponse = (op: SampleOperation): string | undefined => {
  for (const [status, res] of Object.entries(op.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    const type = Object.keys(res.content ?? {}).find((t) => BINARY.test(t));
    if (type) return type;
  }
  return undefined;
};

const paramValue = (p: { name: string; schema?: Json }, schemas: Record<string, Json>): unknown => {
  const v = exampleOf(p.schema, schemas, 0, p.name);
  return typeof v === 'string' && (p.schema?.format === 'uuid' || /^<.*>$/.test(v)) ? `<${p.name}>` : v;
};

export function sdkSample(method: string, path: string, op: SampleOperation, baseUrl: string, schemas: Record<string, Json>): string {
  const init: Json = {};
  const params: Json = {};
  for (const where of ['path', 'query'] as const) {
    const list = (op.parameters ?? []).filter((p) => p.in === where && (where === 'path' || p.required));
    if (list.length) params[where] = Object.fromEntries(list.map((p) => [p.name, paramValue(p, schemas)]));
  }
  const list = method === 'get' && isList(op);
  if (list) params.query = { ...(params.query as Json), limit: 100 };
  if (Object.keys(params).length) init.params = params;

  const content = op.requestBody?.content ?? {};
  const lines = [`import { DteClient${content['multipart/form-data'] ? ', multipart' : ''} } from '@dte-service/sdk';`];
  const binary = binaryResponse(op);
  const multipartFields = content['multipart/form-data']
    ? ((content['multipart/form-data'].schema?.properties ?? {}) as Record<string, Json>)
    : {};
  if (binary || Object.keys(multipartFields).length || Object.keys(content).some((t) => /xml/.test(t)))
    lines.push(`import fs from 'node:fs';`);
  lines.push('', `const dte = new DteClient({ baseUrl: '${baseUrl.replace(/\/$/, '')}', apiKey: process.env.KEY! });`, '');

  // The init object's entries, as TypeScript text (a multipart body is code, not JSON).
  const entries: string[] = [];
  if (init.params) entries.push(`  params: ${tsLiteral(init.params, 1)}`);
  if (content['application/json']) {
    const body = content['application/json'].example ?? exampleOf(content['application/json'].schema, schemas) ?? {};
    entries.push(`  body: ${tsLiteral(body, 1)}`);
  } else if (Object.keys(content).some((t) => /xml/.test(t))) {
    // A document as the supplier sent it: the bytes untouched, with their own content type.
    entries.push(
      `  body: fs.readFileSync('./EnvioDTE.xml')`,
      '  bodySerializer: (bytes) => bytes',
      `  headers: { 'content-type': 'application/xml' }`,
    );
  } else if (content['multipart/form-data']) {
    const required = new Set((content['multipart/form-data'].schema?.required ?? []) as string[]);
    const fields = Object.entries(multipartFields)
      .filter(([name]) => required.has(name))
      .map(([name, s]) => {
        const file = s.format === 'binary' || s.contentMediaType !== undefined || s.type === undefined;
        return `    ${name}: ${file ? `new Blob([fs.readFileSync('./${name}')])` : tsLiteral(String(exampleOf(s, schemas, 0, name) ?? ''))}`;
      });
    entries.push(`  body: multipart({\n${fields.join(',\n')},\n  })`);
  }
  if (binary) entries.push(`  parseAs: 'arrayBuffer'`);
  const initText = entries.length ? `{\n${entries.join(',\n')},\n}` : '';
  const args = `'${path}'${initText ? `, ${initText}` : ''}`;
  if (list) {
    lines.push(`for await (const item of dte.paginate(${args})) {`, '  console.log(item);', '}');
  } else if (binary) {
    const ext = binary.includes('pdf') ? 'pdf' : binary.includes('xml') ? 'xml' : binary.split('/')[1];
    lines.push(`const bytes = await dte.${method}(${args});`, `fs.writeFileSync('./file.${ext}', Buffer.from(bytes));`);
  } else if (method === 'delete') {
    lines.push(`await dte.delete(${args});`);
  } else {
    if (method === 'post') lines.push('// An Idempotency-Key is sent automatically; pass `idempotencyKey` to choose it.');
    lines.push(`const result = await dte.${method}(${args});`, 'console.log(result);');
  }
  return lines.join('\n');
}
