/**
 * `npm run lint` step: fails when the value imports of src/ form a cycle (type-only imports are
 * erased at run time and do not count). Cycles make module start-up order matter and blur which
 * room owns what (docs/design.md). Prints each cycle as a chain of files.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const src = path.join(root, 'src');

function walk(dir: string, out: string[] = []): string[] {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) walk(p, out);
    else if (/\.ts$/.test(name) && !/\.test\.ts$|\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

const IMPORT_RE = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"](\.[^'"]+)['"]/gm;

export function valueImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    if (m[2]) continue; // import type / export type
    const names = m[3]!.trim();
    // `import { type A, type B } from …` is type-only as well.
    if (
      /^\{[^}]*\}$/.test(names) &&
      names
        .slice(1, -1)
        .split(',')
        .every((n) => !n.trim() || /^type\s/.test(n.trim()))
    )
      continue;
    let target = path.resolve(path.dirname(file), m[4]!);
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) target = path.join(target, 'index.ts');
    out.push(target);
  }
  return out;
}

export function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return cycles;
}

if (import.meta.main) {
  const files = walk(src);
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, valueImports(f, fs.readFileSync(f, 'utf8')).filter((t) => known.has(t))]));
  const cycles = findCycles(graph);
  for (const c of cycles) console.error(`import cycle: ${c.map((f) => path.relative(root, f)).join(' -> ')}`);
  if (cycles.length > 0) {
    console.error(`\n${cycles.length} import cycle(s) among value imports in src/. Break them (docs/design.md).`);
    process.exit(1);
  }
  console.log(`import cycles: none (${files.length} files)`);
}
