import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiResponseError, ServerExchangeError, ServerUnreachableError } from '../../client/index.js';
import { isApiError } from '../../shared/errors.js';
import { CliError } from '../exit-codes.js';

/** A tool's answer: the JSON a model reads as text, and the same value as structured content. */
export function toolResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: { ...value } };
}

/** svc's error body (docs/decisions.md, Errors) for whatever a tool's call failed with. */
export function errorBody(error: unknown): { error: string; message: string; status?: number; details?: unknown } {
  if (error instanceof ApiResponseError) {
    return { error: error.error, message: error.message, status: error.status, ...(error.details === undefined ? {} : { details: error.details }) };
  }
  // The routes in this process answer with bodies too; an ApiError reaching here was thrown before a route ran.
  if (isApiError(error)) return { error: error.code, message: error.message, status: error.status };
  if (error instanceof ServerUnreachableError) return { error: 'server_unreachable', message: error.message };
  if (error instanceof ServerExchangeError) return { error: 'server_exchange_failed', message: error.message };
  if (error instanceof CliError) return { error: 'svc_error', message: error.message };
  return { error: 'internal_error', message: error instanceof Error ? error.message : String(error) };
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
