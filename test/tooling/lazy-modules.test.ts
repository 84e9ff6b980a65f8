import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The server loads its largest modules on first use (docs/performance.md, "Loaded on first use"):
 * Scalar's API reference and the PDF stack stay out of a server's memory until /docs or a printed
 * document is asked for. A static import of any of them on the way to a ready app fails here. The
 * logo decoders (jpeg-js, pngjs) are never loaded by the server: a logo is decoded in a child
 * process (src/pdf/logo-isolated.ts).
 * Checked in a process of its own (startup-modules.child.ts): a test worker may hold them already.
 */
const LAZY = ['@scalar/fastify-api-reference', 'pdfkit', 'fontkit', 'bwip-js', 'brotli', 'dejavu-fonts-ttf'];
const DECODER_ONLY = ['jpeg-js', 'pngjs'];
const packagesIn = (urls: string[]) =>
  new Set(urls.flatMap((u) => [...u.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!)));

describe('modules loaded on first use', () => {
  it('a ready app has not loaded Scalar or the PDF stack; /docs and a PDF load them and work; a logo upload works without loading its decoders here', () => {
    const child = path.join(import.meta.dirname, 'startup-modules.child.ts');
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      atRest: string[];
      afterUse: string[];
      docs: { page: number; bundleBytes: number };
      pdf: string;
      logo: { empty: string; accepted: [number, number, string] };
    };
    const atRest = packagesIn(out.atRest);
    // The hook saw the app's own packages (the check would pass vacuously otherwise)...
    expect(atRest).toContain('fastify');
    expect([...LAZY, ...DECODER_ONLY].filter((p) => atRest.has(p))).toEqual([]);
    // ...and sees the lazy ones once they are used.
    const afterUse = packagesIn(out.afterUse);
    expect(LAZY.filter((p) => !afterUse.has(p))).toEqual([]);
    expect(DECODER_ONLY.filter((p) => afterUse.has(p))).toEqual([]);
    expect(out.docs).toEqual({ page: 200, bundleBytes: expect.any(Number) });
    expect(out.docs.bundleBytes).toBeGreaterThan(1_000_000);
    expect(out.pdf).toBe('%PDF-');
    expect(out.logo).toEqual({ empty: 'empty', accepted: [64, 32, 'PNG'] });
  });
});
