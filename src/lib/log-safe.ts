/**
 * What an error may put in a log: its type, message, code and stack, and the same of its causes.
 * Driver errors carry more (PGlite: the query and its parameters; pg: `detail` and `where` with row
 * values — a password hash, an e-mail, a ciphertext); none of it is ever logged (docs/secrets.md).
 */
export function errorSerializer(err: unknown, depth = 0): Record<string, unknown> | unknown {
  if (!(err instanceof Error)) return typeof err === 'object' && err !== null ? '[non-error thrown]' : err;
  const e = err as Error & { code?: unknown; cause?: unknown };
  return {
    type: e.name,
    message: e.message,
    ...(typeof e.code === 'string' || typeof e.code === 'number' ? { code: e.code } : {}),
    stack: e.stack,
    ...(e.cause !== undefined && depth < 3 ? { cause: errorSerializer(e.cause, depth + 1) } : {}),
  };
}

/** A log context with every Error in it (top level and one level down) reduced as above. */
export function safeLogContext(context: unknown): unknown {
  if (context instanceof Error) return errorSerializer(context);
  if (!context || typeof context !== 'object' || Array.isArray(context)) return context;
  return Object.fromEntries(Object.entries(context).map(([k, v]) => [k, v instanceof Error ? errorSerializer(v) : v]));
}

/** The log of background work (jobs, periodics, delivery, annulment, secret clean-up): contexts reduced as above. */
export const backgroundLog = {
  error: (context: object, message: string) => console.error(message, safeLogContext(context)),
  warn: (context: object, message: string) => console.warn(message, safeLogContext(context)),
};
