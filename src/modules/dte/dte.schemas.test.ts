import { describe, expect, it } from 'vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CreateDteBody, DteSchema } from './dte.schemas.ts';

/**
 * The OpenAPI document at /docs is generated from these schemas (issue 14): every property of the
 * create body, at every depth (array items and nested objects included), says what it is, and
 * every leaf carries an example that its own schema accepts.
 */
interface Node {
  path: string;
  schema: TSchema;
}

/** Every property (and array item) under `root`, depth first, with its path (`detalle[].codigos[].tipo`). */
function walk(root: TSchema, path = ''): Node[] {
  const out: Node[] = [];
  if (root.type === 'object' && root.properties) {
    for (const [k, s] of Object.entries(root.properties as Record<string, TSchema>)) {
      const p = path ? `${path}.${k}` : k;
      out.push({ path: p, schema: s }, ...walk(s, p));
    }
  } else if (root.type === 'array' && root.items) {
    const items = root.items as TSchema;
    // An array of objects: its item is a described thing of its own; an array of scalars is a leaf.
    if (items.type === 'object') out.push({ path: `${path}[]`, schema: items }, ...walk(items, `${path}[]`));
  }
  return out;
}

const isLeaf = (s: TSchema) => s.type !== 'object' && !(s.type === 'array' && (s.items as TSchema | undefined)?.type === 'object');

describe('CreateDteBody documents itself', () => {
  const nodes = walk(CreateDteBody);

  it('walks the whole body', () => {
    const paths = nodes.map((n) => n.path);
    for (const p of ['tipoDte', 'detalle[].codigos[].valor', 'exportacion.aduana.bultos[].sello', 'pagos[].fecha', 'emisor.unidadSii'])
      expect(paths).toContain(p);
    expect(nodes.length).toBeGreaterThan(100);
  });

  it('every property has a description', () => {
    const missing = nodes.filter((n) => typeof n.schema.description !== 'string' || n.schema.description.trim() === '').map((n) => n.path);
    expect(missing).toEqual([]);
  });

  it('every leaf has examples', () => {
    const missing = nodes
      .filter((n) => isLeaf(n.schema))
      .filter((n) => !Array.isArray(n.schema.examples) || n.schema.examples.length === 0)
      .map((n) => n.path);
    expect(missing).toEqual([]);
  });

  it('every example validates against its own schema', () => {
    const invalid: string[] = [];
    for (const n of nodes)
      for (const e of (n.schema.examples as unknown[] | undefined) ?? [])
        if (!Value.Check(n.schema, e)) invalid.push(`${n.path}: ${JSON.stringify(e)}`);
    expect(invalid).toEqual([]);
  });

  it('the walk notices a property without a description or example', () => {
    const bad = Type.Object({ a: Type.Object({ b: Type.Array(Type.Object({ c: Type.String() }), { description: 'x' }) }) });
    const nodesOfBad = walk(bad);
    expect(nodesOfBad.filter((n) => !n.schema.description).map((n) => n.path)).toEqual(['a', 'a.b[]', 'a.b[].c']);
    expect(nodesOfBad.filter((n) => isLeaf(n.schema) && !n.schema.examples).map((n) => n.path)).toEqual(['a.b[].c']);
  });
});

describe('the DTE record documents itself', () => {
  it('every property has a description (on itself or, when nullable, on its value)', () => {
    const described = (s: TSchema): boolean =>
      typeof s.description === 'string' ||
      (Array.isArray(s.anyOf) && (s.anyOf as TSchema[]).some((m) => m.type !== 'null' && described(m)));
    const missing: string[] = [];
    const visit = (root: TSchema, path: string) => {
      const obj = Array.isArray(root.anyOf) ? (root.anyOf as TSchema[]).find((m) => m.type === 'object') : root;
      if (obj?.type === 'object' && obj.properties)
        for (const [k, s] of Object.entries(obj.properties as Record<string, TSchema>)) {
          const p = path ? `${path}.${k}` : k;
          if (!described(s)) missing.push(p);
          visit(s, p);
        }
      if (obj?.type === 'array' && obj.items) visit(obj.items as TSchema, `${path}[]`);
    };
    visit(DteSchema, '');
    expect(missing).toEqual([]);
  });
});
