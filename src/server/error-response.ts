import { HTTPError, type H3Event } from 'h3';
import { errorBody } from '../shared/error-answer.js';
import { DomainError, isDomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { methodNotAllowed, routeNotFound, toErrorAnswer, type Answer } from './dispatch.js';

/** One of h3's own client errors (unknown route, body limit, …) as the DomainError of our code, if we have one. */
function toDomainError(error: HTTPError, event: H3Event): DomainError | undefined {
  const { method } = event.req;
  const { pathname } = event.url;
  if (error.status === 404) return routeNotFound(method, pathname);
  if (error.status === 405) return methodNotAllowed(method, pathname);
  if (error.status === 413) return new DomainError('payload_too_large', 'The request body is too large.');
  if (error.status === 400) return new DomainError('invalid_request', error.message || 'The request is malformed.');
  return undefined;
}

/**
 * Maps anything thrown while h3 answers a request to the contract's error answer: h3's client
 * errors become ours, then the one mapping every door uses answers (toErrorAnswer in
 * server/dispatch.ts: a DomainError by its code, anything else a logged 500). An h3 client error
 * of a status we have no code for keeps h3's status, with the one body (`request_error`).
 */
export function toH3ErrorAnswer(error: unknown, event: H3Event, logger: Logger): Answer {
  const call = { method: event.req.method, pathname: event.url.pathname };
  const cause = error instanceof HTTPError && isDomainError(error.cause) ? error.cause : error;
  if (HTTPError.isError(cause) && !cause.unhandled && cause.status < 500) {
    const ours = toDomainError(cause, event);
    if (ours) return toErrorAnswer(ours, call, logger);
    return { status: cause.status, body: errorBody('request_error', cause.message || 'The request cannot be answered.') };
  }
  // A bug h3 caught (wrapped as "unhandled"): the original error is what the log should show.
  const original = HTTPError.isError(cause) && cause.cause instanceof Error ? cause.cause : cause;
  return toErrorAnswer(original, call, logger);
}
