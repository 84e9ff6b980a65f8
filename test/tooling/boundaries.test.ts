import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { findCycles } from '../../scripts/lint/import-cycles.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('module boundaries (npm run lint)', () => {
  const eslint = new ESLint({ cwd: root });
  const lint = async (file: string, code: string) =>
    (await eslint.lintText(code, { filePath: path.join(root, file) }))[0]!.messages.filter((m) => m.ruleId === 'boundaries/module-surface');

  it("refuses an import of another module's internal file, from a module or from outside", async () => {
    const fromModule = await lint(
      'src/modules/dte/x.ts',
      "import { tenantsStore } from '../tenants/tenants.store.ts';\nvoid tenantsStore;\n",
    );
    expect(fromModule).toHaveLength(1);
    expect(fromModule[0]!.message).toContain('src/modules/tenants/index.ts');
    const fromWeb = await lint(
      'src/web/x.ts',
      "import type { Tenant } from '../modules/tenants/tenants.service.ts';\nexport type T = Tenant;\n",
    );
    expect(fromWeb).toHaveLength(1);
  });

  it("accepts the other module's index.ts and the module's own files", async () => {
    expect(await lint('src/modules/dte/x.ts', "import { requireReady } from '../tenants/index.ts';\nvoid requireReady;\n")).toHaveLength(0);
    expect(await lint('src/modules/dte/x.ts', "import { dteStore } from './dte.store.ts';\nvoid dteStore;\n")).toHaveLength(0);
  });
});

describe('import cycles (npm run lint)', () => {
  it('finds a cycle and nothing in an acyclic graph', () => {
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ).map((c) => c.sort()),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });
});
