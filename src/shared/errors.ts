/**
 * The one error type the domain throws for expected failures. Every front end maps it the same
 * way: the server to `{ error, message, details? }` with `status`, the CLI to a message and an
 * exit code (docs/decisions.md, Errors).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  /** Extra top-level members of the body (e.g. `errors` for 422 invalid_workflow). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: unknown, extra?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.extra = extra;
  }

  toBody(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
      ...this.extra,
    };
  }
}

export const badRequest = (code: string, message: string, details?: unknown) => new ApiError(400, code, message, details);

export const notFound = (code: string, message: string) => new ApiError(404, code, message);

/**
 * True for an ApiError from any copy of this module. The CLI loads the domain from the esbuild
 * bundle `dist/runtime.js`, which has its own ApiError class, so `instanceof` against this file's
 * class would miss errors thrown in there: the check is on the name and shape instead.
 */
export function isApiError(value: unknown): value is ApiError {
  if (value instanceof ApiError) return true;
  if (!(value instanceof Error) || value.name !== 'ApiError') return false;
  const candidate = value as Partial<ApiError>;
  return typeof candidate.status === 'number' && typeof candidate.code === 'string' && typeof candidate.toBody === 'function';
}
