import { HTTPError, type H3Event } from 'h3';
import type { Logger } from '../shared/logger.js';
import { ApiError } from '../shared/errors.js';
import { toErrorAnswer as toRouteErrorAnswer, type Answer } from './dispatch.js';

/**
 * Maps anything thrown while h3 answers a request to the contract's error body: h3's own errors
 * (unknown route, body limit) get our codes; the rest is what every door answers (an ApiError its
 * body, anything else a logged 500: server/dispatch.ts).
 */
export function toErrorAnswer(error: unknown, event: H3Event, logger: Logger): Answer & { body: Record<string, unknown> } {
  const cause = error instanceof HTTPError && error.cause instanceof ApiError ? error.cause : error;
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
  return toRouteErrorAnswer(original, { method: event.req.method, pathname: event.url.pathname }, logger) as Answer & { body: Record<string, unknown> };
}
