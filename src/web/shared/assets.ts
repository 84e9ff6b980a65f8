import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { STYLESHEET_PATH } from './layout.ts';
import { PAGE_SECURITY_HEADERS } from './headers.ts';

/** The hosted pages' only static asset: their stylesheet, read once at start. */
const css = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets', 'site.css'));

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  app.get(STYLESHEET_PATH, { schema: { hide: true } }, async (_req, reply) =>
    reply
      .headers({ ...PAGE_SECURITY_HEADERS, 'Cache-Control': 'public, max-age=3600' })
      .type('text/css; charset=utf-8')
      .send(css),
  );
}
