import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused with the
 * field named) so callers learn about typos; query strings and path params are coerced, since
 * they only ever arrive as text.
 */
const make = (coerce: boolean) => {
  const ajv = new Ajv({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
};

const bodyAjv = make(false);
const otherAjv = make(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : otherAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

export function addSharedSchema(schema: { $id?: string }): void {
  for (const ajv of [bodyAjv, otherAjv]) if (schema.$id && !ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}
