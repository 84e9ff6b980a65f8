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

  it('holds in src/web, src/provider and src/context.ts as in the modules', async () => {
    const deep = "import { dteStore } from '%s/modules/dte/dte.store.ts';\nvoid dteStore;\n";
    const surface = "import { createDteService } from '%s/modules/dte/index.ts';\nvoid createDteService;\n";
    for (const [file, up] of [
      ['src/context.ts', '.'],
      ['src/web/dashboard/pages/x.ts', '../../..'],
      ['src/provider/x.ts', '..'],
      ['src/provider/emulator/x.ts', '../..'],
    ] as const) {
      const refused = await lint(file, deep.replace('%s', up));
      expect(refused, file).toHaveLength(1);
      expect(refused[0]!.message).toContain('src/modules/dte/index.ts');
      expect(await lint(file, surface.replace('%s', up)), file).toHaveLength(0);
    }
  });

  it("refuses the provider's internals from outside src/provider, and accepts its surfaces", async () => {
    for (const [file, source] of [
      ['src/modules/dte/x.ts', '../../provider/port.ts'],
      ['src/modules/folios/x.ts', '../../provider/errors.ts'],
      ['src/context.ts', './provider/emulator/schemas.ts'],
      ['src/web/dashboard/x.ts', '../../provider/sii/tokens.ts'],
      ['src/config.ts', './provider/simpleapi/protocol.ts'],
    ] as const) {
      const refused = await lint(file, `import type * as p from '${source}';\nexport type P = typeof p;\n`);
      expect(refused, `${file} -> ${source}`).toHaveLength(1);
      expect(refused[0]!.message).toContain('src/provider/index.ts');
    }
    for (const [file, source] of [
      ['src/modules/dte/x.ts', '../../provider/index.ts'],
      ['src/context.ts', './provider/setup/index.ts'],
      ['src/cli/x.ts', '../provider/emulator/index.ts'],
      // Inside the provider its own files are free.
      ['src/provider/setup/index.ts', '../emulator/inprocess.ts'],
      ['src/provider/routed.ts', './sii/sii-provider.ts'],
    ] as const)
      expect(await lint(file, `import type * as p from '${source}';\nexport type P = typeof p;\n`), `${file} -> ${source}`).toHaveLength(0);
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
