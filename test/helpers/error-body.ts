import { expect } from 'vitest';

/**
 * Asserts the contract's error body (docs/contract.md, "Errors"): exactly `{ error, message[, details] }`, a
 * snake_case code, one sentence for a person, and nothing that looks like a stack trace.
 */
export function expectErrorBody(body: unknown, code: string): void {
  expect(body).toBeTypeOf('object');
  expect(body).not.toBeNull();
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) expect(['error', 'message', 'details']).toContain(key);
  expect(record.error).toBe(code);
  expect(record.error).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(record.message).toBeTypeOf('string');
  expect((record.message as string).length).toBeGreaterThan(0);
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat .+\(.+:\d+:\d+\)|\bstack\b|node_modules|\.ts:\d+/);
}

/** Reads a response that must be a contract error: JSON content type, then the body checks. */
export async function expectErrorResponse(response: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expectErrorBody(body, code);
  return body;
}
