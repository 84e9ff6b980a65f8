import { needsApiKey } from './plugins/auth.ts';
import { exampleOf, responseExample } from './openapi-examples.ts';
import { sdkSample } from './openapi-sdk-sample.ts';

export { exampleOf };

/**
 * The one finishing step on the OpenAPI document @fastify/swagger generates from the route schemas
 * (registered as its `transformObject`): real response descriptions instead of "Default Response",
 * error responses pointing at the shared Error schema with the codes each status can carry, the
 * `bearerAuth` scheme applied to every /api/v1 route, described tags, and a generated curl sample
 * per operation. Route schemas stay the single source; nothing here is written per route.
 */

type Json = Record<string, unknown>;

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Json; example?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: Json; example?: unknown; examples?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Json; example?: unknown }> }>;
  security?: Json[];
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
}

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: Json & { schemas?: Record<string, Json>; securitySchemes?: Json };
  security?: Json[];
}

/** What each status means, and the generic codes any route answering it can give (docs/errors.md). */
export const STATUS_DOCS: Record<string, { text: string; codes?: string[] }> = {
  '200': { text: 'OK.' },
  '201': { text: 'Created.' },
  '202': { text: 'Accepted: the work goes on in the background; follow the returned resource or its webhooks.' },
  '204': { text: 'No Content.' },
  '301': { text: 'Moved Permanently.' },
  '302': { text: 'Found (redirect).' },
  '400': {
    text: 'Malformed or invalid input; `param` names the field at fault.',
    codes: ['invalid_field', 'invalid_parameter', 'invalid_json', 'invalid_character', 'invalid_url', 'invalid_idempotency_key'],
  },
  '401': { text: 'No usable API key.', codes: ['missing_api_key', 'malformed_api_key', 'invalid_api_key', 'revoked_api_key'] },
  '403': { text: 'Forbidden.' },
  '404': {
    text: 'Unknown resource, **or one that belongs to another account**.',
    codes: ['<resource>_not_found', 'route_not_found'],
  },
  '409': { text: 'State conflict.', codes: ['idempotency_key_reused', 'idempotency_key_in_use'] },
  '410': { text: 'Gone: the link or token expired, was used or was invalidated.' },
  '413': { text: 'Body or file too large.', codes: ['body_too_large', 'file_too_large'] },
  '415': { text: 'Wrong `Content-Type`.', codes: ['unsupported_media_type'] },
  '422': { text: 'Well-formed, but breaks a business rule (the codes are listed in each guide).' },
  '429': {
    text: 'Rate limited; wait `Retry-After` seconds.',
    codes: ['rate_limited', 'auth_rate_limited'],
  },
  '500': { text: 'Our bug; quote the `requestId` when you report it.', codes: ['internal_error'] },
  '502': { text: 'The billing provider failed.', codes: ['provider_unavailable'] },
  '503': {
    text: 'Overloaded or the database cannot be reached; retry after `Retry-After`.',
    codes: ['provider_rate_limited', 'database_unavailable'],
  },
  '504': { text: 'The billing provider did not answer in time.' },
};

/** Keyed by the tag's lower-case name, as the route modules spell it ("API Keys" → "api keys"). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  account: 'Your account: who the API key belongs to.',
  'api keys': 'Create, list and revoke `sk_live_…` API keys. A key is shown once, when it is created.',
  tenants: 'The companies you issue for: RUT, business name, activity, environment (certification or production).',
  credentials: "Each tenant's certificate and provider credentials: uploaded directly or through a hosted activation link.",
  folios: 'Authorised folio ranges (CAF) per document type: request more, see how many are left.',
  dte: 'Issue, read and follow electronic tax documents: facturas, boletas, notas de crédito y débito, guías.',
  webhooks: 'Endpoints that receive signed events when documents, folios or credentials change.',
  received: "Documents your tenants' suppliers send them: verify, keep once, accept or claim.",
  exchange: 'Accepted documents e-mailed to their receptors as an EnvioDTE with the PDF.',
  'audit events': 'Who changed what, when and from where: members and API keys, never a secret.',
  certification: "The SII's test set for certifying a tenant as an issuer: uploaded, read, and followed case by case.",
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const describeStatus = (status: string): string => STATUS_DOCS[status]?.text ?? `HTTP ${status}.`;

const isErrorStatus = (status: string) => /^[45]/.test(status);

const XML_EXAMPLE =
  '<?xml version="1.0" encoding="ISO-8859-1"?>\n<DTE xmlns="http://www.sii.cl/SiiDte" version="1.0">\n<Documento ID="F1234T33">\n…\n</Documento>\n<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">\n…\n</Signature>\n</DTE>';

/** A whole example per JSON (or XML) success response, so the reference shows values, not "string". */
function addResponseExamples(content: Record<string, { schema?: Json; example?: unknown }> | undefined, schemas: Record<string, Json>) {
  for (const [type, media] of Object.entries(content ?? {})) {
    if (media.example !== undefined) continue;
    if (/json/.test(type)) media.example = responseExample(media.schema, schemas).value;
    else if (/xml/.test(type)) media.example = XML_EXAMPLE;
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `curl` for one operation: placeholders for path parameters, the key from $KEY, a sample body. */
export function curlSample(method: string, path: string, op: Operation, baseUrl: string, schemas: Record<string, Json>): string {
  const url = baseUrl.replace(/\/$/, '') + path.replace(/\{([^}]+)\}/g, (_m, name: string) => `<${name}>`);
  const query = (op.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(exampleOf(p.schema, schemas, 0, p.name)))}`);
  const lines = [`curl -X ${method.toUpperCase()} "${url}${query.length ? `?${query.join('&')}` : ''}"`];
  if (needsApiKey(path)) lines.push(`-H "Authorization: Bearer $KEY"`);
  const content = op.requestBody?.content ?? {};
  if (content['application/json']) {
    const body = content['application/json'].example ?? exampleOf(content['application/json'].schema, schemas) ?? {};
    lines.push(`-H "Content-Type: application/json"`);
    if (method === 'post') lines.push(`-H "Idempotency-Key: $(uuidgen)"`);
    lines.push(`-d ${shellQuote(JSON.stringify(body, null, 2))}`);
  } else if (content['multipart/form-data']) {
    const props = (content['multipart/form-data'].schema?.properties ?? {}) as Record<string, Json>;
    for (const [name, s] of Object.entries(props)) {
      const binary = s.format === 'binary' || s.contentMediaType !== undefined || s.type === undefined;
      lines.push(binary ? `-F "${name}=@./${name}"` : `-F "${name}=${String(exampleOf(s, schemas) ?? '')}"`);
    }
  }
  return lines.join(' \\\n  ');
}

/**
 * The codes a route names in its own description ("409 tenant_not_ready, 422 amount_mismatch"), by
 * status: the route-specific codes the reference lists beside the generic ones of each status.
 */
export function routeErrorCodes(description: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of (description ?? '').matchAll(/\b([45]\d\d) `?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?/g)) {
    const list = out.get(m[1]!) ?? [];
    if (!list.includes(m[2]!)) list.push(m[2]!);
    out.set(m[1]!, list);
  }
  return out;
}

const codeList = (codes: string[]) => codes.map((c) => `\`${c}\``).join(', ');

/** An error response's description: what the status means, this route's codes, the generic ones. */
const errorDescription = (status: string, routeCodes: string[] = []): string => {
  const generic = (STATUS_DOCS[status]?.codes ?? []).filter((c) => !routeCodes.includes(c));
  return [
    describeStatus(status),
    routeCodes.length ? `This route: ${codeList(routeCodes)}.` : '',
    generic.length ? `${routeCodes.length ? 'Also' : 'Codes'}: ${codeList(generic)}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
};

/** Appended to info.description: the conventions a caller needs before the first call (Markdown). */
const gettingStarted = (baseUrl: string) => `
## Authentication
Send an API key on every call: \`Authorization: Bearer sk_live_…\`. The samples read it from \`$KEY\`:

\`\`\`sh
export KEY=sk_live_…
curl -H "Authorization: Bearer $KEY" ${baseUrl.replace(/\/$/, '')}/api/v1/account
\`\`\`

## Idempotency
Every \`POST\` accepts an \`Idempotency-Key\` header (kept 24 h): a retry with the same key and body
answers the first response again instead of acting twice.

## Errors
Every error is \`{"error": {"code", "message", "param?", "details?", "requestId"}}\` with a
\`Request-Id\` header. Branch on \`code\`; each response below lists the codes of its status.

${Object.entries(STATUS_DOCS)
  .filter(([k]) => /^[45]/.test(k) && k !== '403')
  .map(([k, v]) => `- **${k}** ${v.text}${v.codes ? ` ${v.codes.map((c) => `\`${c}\``).join(', ')}` : ''}`)
  .join('\n')}

## Pagination
Lists take \`limit\` (1–250, default 50) and answer \`{data, iterator, done}\`; pass \`iterator\` back
for the next page.
`;

export function transformOpenApi(doc: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(doc);
  out.info = { ...out.info, description: `${String(out.info.description ?? '')}\n${gettingStarted(doc.servers?.[0]?.url ?? '')}` };
  const schemas = (out.components?.schemas ?? {}) as Record<string, Json>;
  const baseUrl = out.servers?.[0]?.url ?? '';
  out.components = {
    ...out.components,
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: `Authorization: Bearer sk_live_…`. Create one in the dashboard or with `POST /api/v1/api-keys`.',
      },
    },
  };
  delete out.security;
  const usedTags = new Set<string>();
  for (const [path, item] of Object.entries(out.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      for (const t of op.tags ?? []) usedTags.add(t);
      op.security = needsApiKey(path) ? [{ bearerAuth: [] }] : [];
      const named = routeErrorCodes(op.description);
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (isErrorStatus(status)) {
          res.description = errorDescription(status, named.get(status));
          res.content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
        } else {
          if (!res.description || res.description === 'Default Response') res.description = describeStatus(status);
          addResponseExamples(res.content, schemas);
        }
      }
      op['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: curlSample(method, path, op, baseUrl, schemas) },
        { lang: 'TypeScript', label: 'TypeScript SDK', source: sdkSample(method, path, op, baseUrl, schemas) },
      ];
    }
  }
  out.tags = [...usedTags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name.toLowerCase()] ?? `Operations on ${name}.` }));
  return out;
}
