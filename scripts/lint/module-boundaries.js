/**
 * ESLint rule `boundaries/module-surface`: code outside `src/modules/<group>/` (and other groups)
 * may import a module only through its public surface, `src/modules/<group>/index.ts`
 * (docs/design.md, "Module boundaries"). Type-only imports count too: a type is part of a surface.
 */
import path from 'node:path';

const moduleOf = (file) => {
  const m = /(?:^|\/)src\/modules\/([^/]+)\//.exec(file.split(path.sep).join('/'));
  return m ? m[1] : null;
};

export const moduleSurfaceRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Import another module only through its index.ts (its public surface).' },
    messages: {
      deep: "'{{source}}' reaches into the internals of module '{{target}}'. Import it from src/modules/{{target}}/index.ts instead (export what you need there).",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = moduleOf(file);
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const to = moduleOf(target);
      if (!to || to === from) return;
      if (/\/src\/modules\/[^/]+\/index\.ts$/.test(target.split(path.sep).join('/'))) return;
      context.report({ node: node.source, messageId: 'deep', data: { source, target: to } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'module-surface': moduleSurfaceRule } };
