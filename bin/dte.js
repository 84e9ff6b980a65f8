#!/usr/bin/env node
// The `dte` command (npx dte …). Needs Node 24+, which `npx` provides from the project's own
// `node` dependency; the TypeScript sources run through Node's built-in type stripping.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`dte needs Node.js 24 or newer (this is ${process.version}). Run it through npx or npm scripts.`);
  process.exit(1);
}
// Compiled code kept between runs (src/lib/compile-cache.ts), before the commands' modules load.
const { enableCompileCache } = await import('../src/lib/compile-cache.ts');
enableCompileCache();
const { runCli } = await import('../src/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
