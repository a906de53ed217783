import { CommanderError } from 'commander';
import { ApiResponseError, ServerExchangeError, ServerUnreachableError } from '../client/errors.js';
import { errorBody, statusOf, type ErrorBody } from '../shared/error-answer.js';
import { isDomainError, type ErrorCode } from '../shared/errors.js';
import { CliError } from './exit-codes.js';

/**
 * svc's error body (docs/contract.md, "Errors") for whatever a command or an MCP tool failed with,
 * and the HTTP status when an answer had one: what `--json` prints on stdout and an MCP tool
 * answers, so a script or a model reads `merge_conflict` rather than a sentence.
 */
export function errorBodyOf(error: unknown): ErrorBody & { status?: number } {
  if (error instanceof ApiResponseError) {
    // A server's answer: its code is one of svc's (or a newer server's), carried through as given,
    // with the body's own members (`errors` of `invalid_workflow`).
    const extra = Object.fromEntries(Object.entries(error.body).filter(([key]) => !['error', 'message', 'details'].includes(key)));
    return { ...errorBody(error.error as ErrorCode, error.message, error.details, extra), status: error.status };
  }
  // The routes in this process answer with bodies too; a DomainError reaching here was thrown before a route ran.
  if (isDomainError(error)) return { ...errorBody(error.code, error.message, error.details, error.extra), status: statusOf(error.code) };
  if (error instanceof ServerUnreachableError) return errorBody('server_unreachable', error.message);
  if (error instanceof ServerExchangeError) return errorBody('server_exchange_failed', error.message);
  if (error instanceof CliError) return errorBody(error.code, error.message);
  // Commander's own refusals (an unknown option, a missing argument) are usage errors.
  if (error instanceof CommanderError) return errorBody('usage_error', error.message.replace(/^error: /, ''));
  return errorBody('internal_error', error instanceof Error ? error.message : String(error));
}
