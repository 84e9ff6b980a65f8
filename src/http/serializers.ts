import { createRequire } from 'node:module';

/**
 * Fastify's response serializers (fast-json-stringify, one per route and status), compiled once
 * per process and response schema instead of once per app: Fastify compiles them at `ready()` for
 * every app it builds, and the test suite builds an app per suite, where compiling them was most
 * of `ready()` (docs/performance.md, "The test suite"). A server builds one app, so it compiles
 * each once either way. A serializer is a pure function of its schema, the app's shared schemas
 * and the serializer options, which key the cache; route schemas are module constants, the same
 * objects in every app of a process.
 */
type RouteSerializer = (data: unknown) => string;
type SerializerCompiler = (route: { schema?: unknown }) => RouteSerializer;
type SerializerFactory = (externalSchemas: unknown, options: unknown) => SerializerCompiler;

// Fastify's own default factory, from Fastify's dependencies (the one it uses when given none).
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const defaultFactory = fastifyRequire('@fastify/fast-json-stringify-compiler') as () => SerializerFactory;
const base = defaultFactory();

const compiled = new Map<string, WeakMap<object, RouteSerializer>>();

export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = base(externalSchemas, options);
  const key = JSON.stringify([externalSchemas, options ?? null]);
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const cache = bySchema;
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serialize = cache.get(schema);
    if (!serialize) cache.set(schema, (serialize = compile(route)));
    return serialize;
  };
};
