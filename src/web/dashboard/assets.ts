import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard's two static files, read once at start. Their URLs carry a content hash, so they
 * can be cached for a year and a new release is picked up at once. Scripts are external files
 * only: the Content-Security-Policy forbids inline script.
 */
const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

export interface Asset {
  url: string;
  body: Buffer;
  contentType: string;
}

const load = (file: string, contentType: string): Asset => {
  const body = fs.readFileSync(path.join(DIR, file));
  const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
  const ext = path.extname(file);
  return { url: `/assets/dashboard/${path.basename(file, ext)}.${hash}${ext}`, body, contentType };
};

const css = load('dashboard.css', 'text/css; charset=utf-8');
const js = load('copy.js', 'text/javascript; charset=utf-8');

export const ASSETS = { css: css.url, js: js.url };
export const ASSET_FILES: readonly Asset[] = [css, js];
