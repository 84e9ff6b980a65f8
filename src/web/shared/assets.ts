import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { FAVICON_PATH, STYLESHEET_PATH } from './layout.ts';
import { PAGE_SECURITY_HEADERS } from './headers.ts';
import { faviconIco } from './favicon.ts';

/**
 * The hosted pages' static assets, read once at start: their stylesheet, and the icon every page
 * links (also answered at /favicon.ico, which browsers and tools ask for unprompted). None needs
 * a session or an API key.
 */
const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
const css = fs.readFileSync(path.join(DIR, 'site.css'));
const svg = fs.readFileSync(path.join(DIR, 'favicon.svg'));
const ico = faviconIco();

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const asset = (url: string, type: string, body: Buffer, maxAge: number) =>
    app.get(url, { schema: { hide: true } }, async (_req, reply) =>
      reply
        .headers({ ...PAGE_SECURITY_HEADERS, 'Cache-Control': `public, max-age=${maxAge}` })
        .type(type)
        .send(body),
    );
  asset(STYLESHEET_PATH, 'text/css; charset=utf-8', css, 3600);
  asset(FAVICON_PATH, 'image/svg+xml', svg, 86_400);
  asset('/favicon.ico', 'image/x-icon', ico, 86_400);
}
