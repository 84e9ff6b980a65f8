// Builds the package as users install it (README "Building"): ESM in dist/esm and CommonJS in
// dist/cjs, each with its type declarations, from the TypeScript sources, with the repository's
// TypeScript compiler. Plain JavaScript so it runs on any Node.js the package supports.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const require = (await import('node:module')).createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

fs.rmSync(dist, { recursive: true, force: true });
const build = (format, extra) => {
  const out = path.join(dist, format);
  // A package.json per format tells Node (and TypeScript) how to read the .js and .d.ts files there.
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify({ type: format === 'esm' ? 'module' : 'commonjs' }) + '\n');
  execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.build.json'), '--outDir', out, ...extra], { stdio: 'inherit' });
  // tsc does not copy declaration files: the generated API types go beside the declarations that import them.
  fs.copyFileSync(path.join(here, 'src/schema.d.ts'), path.join(out, 'schema.d.ts'));
};
build('esm', []);
build('cjs', ['--module', 'commonjs', '--moduleResolution', 'bundler']);
console.log(`built ${path.relative(process.cwd(), dist) || 'dist'} (esm, cjs)`);
