import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guidesTypeScript } from '../support/guides.ts';
import { ROOT } from '../support/processes.ts';
import { buildOpenApiDocument, generateSdkTypes, SDK_SCHEMA_FILE } from '../../scripts/sdk-types.ts';

/**
 * The SDK samples of the API reference (`x-codeSamples`, TypeScript) compile against the SDK: every
 * one is written to a file and type-checked with the project's tsc settings, so a sample cannot
 * name a path, parameter or body field the SDK's types do not have. And the committed SDK types
 * match the document this code serves (the same check as `npm run lint`).
 */
let doc: { paths: Record<string, Record<string, { 'x-codeSamples'?: { lang: string; source: string }[] }>> };
const dir = path.join(ROOT, '.tmp', `sdk-samples-${process.pid}`);

beforeAll(async () => {
  doc = (await buildOpenApiDocument()) as typeof doc;
  fs.mkdirSync(dir, { recursive: true });
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('packages/sdk/src/schema.d.ts is what openapi-typescript makes of the served document', async () => {
  expect(fs.readFileSync(SDK_SCHEMA_FILE, 'utf8') === (await generateSdkTypes(doc)), 'run `npm run sdk:types` and commit').toBe(true);
});

it('every TypeScript sample in the reference, and the guides, type-check against the SDK', async () => {
  let n = 0;
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const sample = op['x-codeSamples']?.find((s) => s.lang === 'TypeScript')?.source;
      expect(sample, `${method} ${p}`).toBeTruthy();
      fs.writeFileSync(path.join(dir, `sample-${String(++n).padStart(3, '0')}.ts`), `// ${method.toUpperCase()} ${p}\n${sample}\n`);
    }
  }
  expect(n).toBeGreaterThan(40);
  // The guides' TypeScript blocks too (run against a live server by test/e2e/guides.test.ts).
  fs.writeFileSync(path.join(dir, 'guides.ts'), guidesTypeScript());
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.json', include: ['*.ts'], compilerOptions: { noEmit: true } }),
  );
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')],
      { cwd: ROOT, maxBuffer: 8 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, text: stdout + stderr }),
    );
  });
  expect(out.code, out.text.slice(0, 4000)).toBe(0);
}, 180_000);
