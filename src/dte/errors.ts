/**
 * The one error type the engine throws. `code` is a stable snake_case identifier the API maps to
 * an HTTP status (most become 422); `param` names the input field at fault, in the API's
 * camelCase path notation (`receptor.razonSocial`, `detalle[2].cantidad`).
 */
export class DteEngineError extends Error {
  readonly code: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, param?: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DteEngineError';
    this.code = code;
    this.param = param;
    this.details = details;
  }
}

export function isDteEngineError(e: unknown): e is DteEngineError {
  return e instanceof DteEngineError;
}
