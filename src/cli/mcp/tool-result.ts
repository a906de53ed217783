import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBodyOf } from '../error-body.js';

/** A tool's answer: the JSON a model reads as text, and the same value as structured content. */
export function toolResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: { ...value } };
}

/**
 * A failed call as an MCP tool error (`isError`), never a protocol error or a crash: the model
 * reads svc's code and message (`workflow_not_found: No workflow named …`) and can act on them.
 */
export function toolError(error: unknown): CallToolResult {
  const body = errorBodyOf(error);
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
