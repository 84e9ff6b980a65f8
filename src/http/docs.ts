import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI 3.1 document (generated from the route schemas) at /api/v1/openapi.json, and a
 * readable, server-rendered reference at /docs (no JavaScript, no external assets).
 */
const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

interface Op {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>;
}

export function renderReference(doc: { info: { title: string; description?: string }; paths: Record<string, Record<string, Op>> }): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? 'Other';
      const id = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-');
      const params = (op.parameters ?? [])
        .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''}) ${esc(p.description)}</li>`)
        .join('');
      const body = op.requestBody
        ? Object.entries(op.requestBody.content)
            .map(([ct, c]) => `<h4>Body (${esc(ct)})</h4><pre>${esc(JSON.stringify(c.schema, null, 2))}</pre>`)
            .join('')
        : '';
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => {
          const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
          return `<details><summary><code>${esc(code)}</code> ${esc(r.description)}</summary>${schema ? `<pre>${esc(JSON.stringify(schema, null, 2))}</pre>` : ''}</details>`;
        })
        .join('');
      const html = `<section id="${id}"><h3><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>${op.description ? `<p>${esc(op.description)}</p>` : ''}${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${body}<h4>Responses</h4>${responses}</section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<li><a href="#tag-${esc(t.replace(/\W+/g, '-'))}">${esc(t)}</a></li>`).join('');
  const sections = [...byTag.entries()]
    .map(([t, ops]) => `<h2 id="tag-${esc(t.replace(/\W+/g, '-'))}">${esc(t)}</h2>${ops.join('')}`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} — API reference</title><style>
body{font-family:system-ui,sans-serif;max-width:70rem;margin:0 auto;padding:1rem;line-height:1.5;color:#1a1a1a}
pre{background:#f4f4f4;padding:.75rem;overflow:auto;font-size:.85rem}section{border-top:1px solid #ddd;padding:.5rem 0}
.m{display:inline-block;min-width:4.5rem;font-weight:700;color:#0b5394}code{font-size:.95em}nav ul{columns:2}
</style></head><body><header><h1>${esc(doc.info.title)} — API reference</h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p></header>
<nav aria-label="Resource groups"><ul>${nav}</ul></nav><main>${sections}</main></body></html>`;
}

export default async function docsRoutes(app: FastifyInstance) {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .send(renderReference(app.swagger() as never)),
  );
}
