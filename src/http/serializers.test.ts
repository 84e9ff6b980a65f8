import { describe, expect, it } from 'vitest';
import { cachedSerializerFactory } from './serializers.ts';

describe('response serializers compiled once per process', () => {
  const schema = { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } };
  const externals = { Err: { $id: 'Err', type: 'object', properties: { code: { type: 'string' } } } };

  it('serializes by the schema, leaving out what it does not list', () => {
    const serialize = cachedSerializerFactory(externals, undefined)({ schema });
    expect(JSON.parse(serialize({ id: 'a', n: 2, secret: 'x' }))).toEqual({ id: 'a', n: 2 });
  });

  it('hands a second app the serializer the first compiled, for the same schema, shared schemas and options only', () => {
    const first = cachedSerializerFactory(externals, undefined)({ schema });
    expect(cachedSerializerFactory(structuredClone(externals), undefined)({ schema })).toBe(first);
    expect(cachedSerializerFactory(externals, undefined)({ schema: structuredClone(schema) })).not.toBe(first);
    expect(cachedSerializerFactory({}, undefined)({ schema })).not.toBe(first);
    expect(cachedSerializerFactory(externals, { rounding: 'floor' })({ schema })).not.toBe(first);
  });
});
