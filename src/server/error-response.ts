import { HTTPError, type H3Event } from 'h3';
import type { Logger } from '../shared/logger.js';
import { ApiError } from '../shared/errors.js';

/**
 * Maps anything thrown while answering a request to the contract's error body. An ApiError is an
 * expected answer; h3's own errors (unknown route, body limit) get our codes; anything else is a
 * bug: 500 with a generic message, and the stack goes to the log only.
 */
export function toErrorAnswer(error: unknown, event: H3Event, logger: Logger): { status: number; body: Record<string, unknown> } {
  const cause = error instanceof HTTPError && error.cause instanceof ApiError ? error.cause : error;
  if (cause instanceof ApiError) return { status: cause.status, body: cause.toBody() };
  if (HTTPError.isError(cause) && !cause.unhandled) {
    const status = cause.status;
    if (status === 404) {
      return { status, body: { error: 'route_not_found', message: `No route matches ${event.req.method} ${event.url.pathname}.` } };
    }
    if (status === 405) {
      return { status, body: { error: 'method_not_allowed', message: `${event.req.method} is not allowed on ${event.url.pathname}.` } };
    }
    if (status === 413) return { status, body: { error: 'payload_too_large', message: 'The request body is too large.' } };
    if (status === 400) return { status, body: { error: 'invalid_request', message: cause.message || 'The request is malformed.' } };
    if (status < 500) return { status, body: { error: 'request_error', message: cause.message || 'The request cannot be answered.' } };
  }
  const original = HTTPError.isError(cause) && cause.cause instanceof Error ? cause.cause : cause;
  logger.error('http.internal_error', {
    method: event.req.method,
    path: event.url.pathname,
    error: original instanceof Error ? original.message : String(original),
    stack: original instanceof Error ? original.stack : undefined,
  });
  return { status: 500, body: { error: 'internal_error', message: 'An internal error occurred; details are in the server log.' } };
}
