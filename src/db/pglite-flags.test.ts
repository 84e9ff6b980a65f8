import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasPgliteNodeFlags, PGLITE_NODE_FLAGS } from './pglite.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the Node flags that keep the embedded server small (docs/performance.md "Memory")', () => {
  it('npm start passes every one of them, before the script', () => {
    const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
      .start!;
    const words = start.split(/\s+/);
    expect(words[0]).toBe('node');
    const script = words.indexOf('src/main.ts');
    expect(script).toBeGreaterThan(0);
    for (const flag of PGLITE_NODE_FLAGS) expect(words.slice(1, script)).toContain(flag);
    expect(hasPgliteNodeFlags(words.slice(1, script))).toBe(true);
  });

  it('a process missing any one of them is told so', () => {
    for (const missing of PGLITE_NODE_FLAGS) expect(hasPgliteNodeFlags(PGLITE_NODE_FLAGS.filter((f) => f !== missing))).toBe(false);
  });
});
