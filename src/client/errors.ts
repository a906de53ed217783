/**
 * The client's two failures, the same whichever transport answered: the API said no (a non-2xx
 * answer, carrying the error body of docs/contract.md, "Errors"), or no server could be reached.
 */

/** A non-2xx answer: `{ status, error, message, details }` plus the whole body (e.g. `errors` of a 422). */
export class ApiResponseError extends Error {
  readonly error: string;
  readonly details: unknown;

  constructor(
    readonly status: number,
    readonly body: { error?: string; message?: string; details?: unknown; [key: string]: unknown },
  ) {
    super(body.message ?? `The server answered ${status}.`);
    this.name = 'ApiResponseError';
    this.error = body.error ?? 'unknown_error';
    this.details = body.details;
  }

  /** The `{path, message}` entries of a 400 `invalid_request`, else none. */
  get issues(): Array<{ path: string; message: string }> {
    return Array.isArray(this.details) ? (this.details as Array<{ path: string; message: string }>) : [];
  }
}

export class ServerUnreachableError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`No svc server is reachable at ${url} (${reason}). Start one with \`svc serve\`, or pass --url.`);
    this.name = 'ServerUnreachableError';
  }
}

/**
 * The server was reached but the exchange broke off (it closed the connection, or a read did not
 * answer in time). Not "unreachable": the request may have been carried out, so nothing falls
 * back to the store and nothing is sent again.
 */
export class ServerExchangeError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`The svc server at ${url} did not finish answering (${reason}); the request may have been carried out — check before repeating it.`);
    this.name = 'ServerExchangeError';
  }
}
