import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiResponseError, ServerExchangeError, ServerUnreachableError } from '../../client/index.js';
import { errorBody as bodyOf, statusOf, type ErrorBody } from '../../shared/error-answer.js';
import { isDomainError, type ErrorCode } from '../../shared/errors.js';
import { CliError } from '../exit-codes.js';

/** A tool's answer: the JSON a model reads as text, and the same value as structured content. */
export function toolResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: { ...value } };
}

/** svc's error body (docs/contract.md, "Errors") for whatever a tool's call failed with. */
export function errorBody(error: unknown): ErrorBody & { status?: number } {
  if (error instanceof ApiResponseError) {
    // A server's answer: its code is one of svc's (or a newer server's), carried through as given.
    return { ...bodyOf(error.error as ErrorCode, error.message, error.details), status: error.status };
  }
  // The routes in this process answer with bodies too; a DomainError reaching here was thrown before a route ran.
  if (isDomainError(error)) return { ...bodyOf(error.code, error.message, error.details, error.extra), status: statusOf(error.code) };
  if (error instanceof ServerUnreachableError) return bodyOf('server_unreachable', error.message);
  if (error instanceof ServerExchangeError) return bodyOf('server_exchange_failed', error.message);
  if (error instanceof CliError) return bodyOf('svc_error', error.message);
  return bodyOf('internal_error', error instanceof Error ? error.message : String(error));
}

/**
 * A failed call as an MCP tool error (`isError`), never a protocol error or a crash: the model
 * reads svc's code and message (`workflow_not_found: No workflow named …`) and can act on them.
 */
export function toolError(error: unknown): CallToolResult {
  const body = errorBody(error);
  return { content: [{ type: 'text', text: `${body.error}: ${body.message}` }], structuredContent: body, isError: true };
}

/** Runs a tool's work, turning any failure into a tool error. */
export async function answer(work: () => Promise<object>): Promise<CallToolResult> {
  try {
    return toolResult(await work());
  } catch (error) {
    return toolError(error);
  }
}
