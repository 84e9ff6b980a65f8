import module from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Keeps V8's compiled code (and, on Node 24, the type-stripped TypeScript) of the modules a process
 * loads from then on, so the next start reuses it: loading the service's modules took 1.7–1.9 s of
 * CPU from scratch and 0.55 s from the cache (docs/performance.md, "Sixth round"). Must run before
 * the modules are imported (the entry points import them dynamically after calling this).
 *
 * The cache lives in the project's `node_modules/.cache` (the project's owner writes it; a folder in
 * the shared temporary directory could be planted by another user). Node checks each entry against
 * the source it was made from; a folder it cannot write only means no cache. NODE_COMPILE_CACHE, when
 * set, chooses another folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
export function enableCompileCache(): void {
  const dir = process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('../../node_modules/.cache/dte-compile', import.meta.url));
  try {
    module.enableCompileCache?.(dir);
  } catch {
    // Caching is an optimisation: without it the process starts as before.
  }
}
