/**
 * ESLint rule `boundaries/module-surface` (docs/design.md §11, "Module boundaries"), over every
 * file of `src/` — modules, `src/web`, `src/provider`, `src/context.ts` and the rest alike:
 * - code outside `src/modules/<group>/` may import that module only through its public surface,
 *   `src/modules/<group>/index.ts`;
 * - code outside `src/provider/` may import the provider only through `src/provider/index.ts` (the
 *   port, its errors and the wiring) or an adapter's own `src/provider/<adapter>/index.ts`; what
 *   lies beside them (port.ts, routed.ts, an adapter's files) is the provider's own business.
 * Type-only imports count too: a type is part of a surface.
 */
import path from 'node:path';

const slashed = (file) => file.split(path.sep).join('/');

const moduleOf = (file) => {
  const m = /(?:^|\/)src\/modules\/([^/]+)\//.exec(slashed(file));
  return m ? m[1] : null;
};

/** The path of a file inside src/provider ('index.ts', 'sii/tokens.ts'), or null outside it. */
const providerPath = (file) => {
  const m = /(?:^|\/)src\/provider\/(.+)$/.exec(slashed(file));
  return m ? m[1] : null;
};

const PROVIDER_SURFACE = /^(?:[^/]+\/)?index\.ts$/;

export const moduleSurfaceRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Import another module, or the provider, only through its index.ts (its public surface).' },
    messages: {
      deep: "'{{source}}' reaches into the internals of module '{{target}}'. Import it from src/modules/{{target}}/index.ts instead (export what you need there).",
      provider:
        "'{{source}}' reaches into the provider's internals. Import it from src/provider/index.ts, or from the adapter's src/provider/<adapter>/index.ts (export what you need there).",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = moduleOf(file);
    const insideProvider = providerPath(file) !== null;
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const to = moduleOf(target);
      if (to && to !== from && !/\/src\/modules\/[^/]+\/index\.ts$/.test(slashed(target))) {
        context.report({ node: node.source, messageId: 'deep', data: { source, target: to } });
        return;
      }
      const inProvider = providerPath(target);
      if (inProvider !== null && !insideProvider && !PROVIDER_SURFACE.test(inProvider))
        context.report({ node: node.source, messageId: 'provider', data: { source } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'module-surface': moduleSurfaceRule } };
