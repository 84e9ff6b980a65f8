/**
 * Shared schema pieces. Every route declares request and response schemas: the response schema
 * is the allow-list of fields, so hashed or encrypted columns can never leak, and the OpenAPI
 * document is generated from them.
 */
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable snake_case error code (see docs/errors.md).' }),
      message: Type.String({ description: 'What went wrong and what to fix.' }),
      param: Type.Optional(Type.String({ description: 'The request field at fault, when there is one.' })),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
      requestId: Type.String(),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

export const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) });

export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

/**
 * Whether an object lives in live mode (`true`) or test mode (`false`): docs/design.md "Test mode".
 * Filled from the request's key by the livemode plugin (src/http/plugins/livemode.ts) where the view
 * does not carry it, since every object a key can reach is in that key's mode.
 */
export const Livemode = () =>
  Type.Boolean({
    description: 'true for an object in live mode, false in test mode (made with an sk_test_ key; it never reaches the tax authority).',
  });

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
    iterator: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);

export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    iterator: Nullable(Type.String({ description: 'Pass as `iterator` to get the next page; null when done.' })),
    done: Type.Boolean(),
  });

const ref = Type.Ref('Error');

/** The error responses every authenticated route can give, added to each route's success schema. */
export function withErrors(success: Record<number, TSchema>, extra: number[] = []): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...success };
  for (const code of [400, 401, 404, 409, 413, 415, 422, 429, ...extra]) out[code] ??= ref;
  return out;
}

export const IdParams = (name: string, description: string) =>
  Type.Object({ [name]: Type.String({ maxLength: 64, description }) }, { additionalProperties: false });
