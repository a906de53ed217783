// Domain errors, mapped at the edge (docs/decisions.md, "Errors"): the domain throws a code and a
// sentence, one table gives each code its status, and one function builds every error body. The
// statuses the contract documents must not move; every door — the h3 app (its own errors
// included) and the in-process API the CLI uses — answers with exactly what that builder makes.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, errorAnswer, errorBody, statusOf } from '../../src/shared/error-answer.js';
import { DomainError, ERROR_CODES, isDomainError, type ErrorCode } from '../../src/shared/errors.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { useBothDoors } from '../helpers/doors.js';

describe('the status table', () => {
  it('has exactly one status, a client or server error, for every code', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(statusOf(code), code).toSatisfy((status: number) => Number.isInteger(status) && status >= 400 && status < 600);
  });

  // Each pair as docs/contract.md, "Errors"), CONTRACT.md and the service interface spec state it.
  it.each<[ErrorCode, number]>([
    ['invalid_json', 400],
    ['invalid_request', 400],
    ['invalid_since', 400],
    ['invalid_limit', 400],
    ['from_run_without_worktree', 400],
    ['from_run_other_workspace', 400],
    ['bundled_workflow_readonly', 403],
    ['conversation_not_found', 404],
    ['workspace_not_found', 404],
    ['workflow_not_found', 404],
    ['run_not_found', 404],
    ['env_key_not_found', 404],
    ['route_not_found', 404],
    ['request_timeout', 408],
    ['invalid_run_state', 409],
    ['workspace_exists', 409],
    ['workspace_in_use', 409],
    ['worktree_failed', 409],
    ['worktree_gone', 409],
    ['budget_exceeded', 409],
    ['workflow_not_available', 409],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['invalid_workflow', 422],
    ['env_leak_blocked', 422],
    ['webhook_secret_missing', 503],
    ['webhook_secret_weak', 503],
    ['internal_error', 500],
  ])('%s is %i', (code, status) => {
    expect(statusOf(code)).toBe(status);
  });
});

describe('the one body builder', () => {
  it('builds { error, message, details?, ...extra }, leaving out details when there are none', () => {
    expect(errorBody('run_not_found', 'No run.')).toStrictEqual({ error: 'run_not_found', message: 'No run.' });
    expect(errorBody('invalid_request', 'Bad.', [{ path: 'a', message: 'b' }])).toStrictEqual({
      error: 'invalid_request',
      message: 'Bad.',
      details: [{ path: 'a', message: 'b' }],
    });
    expect(errorAnswer(new DomainError('invalid_workflow', 'Two errors.', undefined, { errors: ['x', 'y'] }))).toStrictEqual({
      status: 422,
      body: { error: 'invalid_workflow', message: 'Two errors.', errors: ['x', 'y'] },
    });
  });

  it('is the only place in src/ that writes an error body literal', async () => {
    const src = join(import.meta.dirname, '../../src');
    const files = (await readdir(src, { recursive: true })).filter((file) => /\.tsx?$/.test(file)).map((file) => join(src, file));
    // `{ error: <anything but a zod schema>, message …`: an error body made by hand.
    const handMade = /\{\s*error:\s*(?!\s|z\.)[^,}]+,\s*message\b/;
    const makers = [];
    for (const file of files) if (handMade.test(await readFile(file, 'utf8'))) makers.push(relative(src, file));
    expect(makers).toEqual(['shared/error-answer.ts']);
  });

  it('recognises a DomainError from another copy of the class (the CLI bundle) by its name and code', () => {
    const foreign = Object.assign(new Error('No run.'), { name: 'DomainError', code: 'run_not_found' });
    expect(isDomainError(foreign)).toBe(true);
    expect(isDomainError(Object.assign(new Error('x'), { name: 'DomainError' }))).toBe(false);
    expect(isDomainError(new Error('x'))).toBe(false);
  });
});

describe('every door answers with the one builder', () => {
  const doors = useBothDoors();

  /** The body is exactly what the builder makes of its own code, message and details: no other shape gets through. */
  function expectBuiltBody(status: number, body: Record<string, unknown>, code: ErrorCode): void {
    expect(status).toBe(statusOf(code));
    expect(body).toStrictEqual(errorBody(code, body.message as string, body.details));
  }

  const json = { 'content-type': 'application/json' };
  it.each<[string, string, RequestInit, ErrorCode]>([
    ['an unknown route', '/api/no-such-route', {}, 'route_not_found'],
    ['a method the path does not take', '/api/health', { method: 'DELETE' }, 'method_not_allowed'],
    ['an unknown dashboard asset', '/assets/no-such-file.js', {}, 'route_not_found'],
    ['a malformed JSON body', '/api/workflows/validate', { method: 'POST', headers: json, body: '{"definition": ' }, 'invalid_json'],
    ['a body that is not JSON', '/api/workflows/validate', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }, 'unsupported_media_type'],
    ['an ill-typed body', '/api/workflows/validate', { method: 'POST', headers: json, body: '{"nothing": true}' }, 'invalid_request'],
    ['a domain error', '/api/workflows/runs/run_no_such_run', {}, 'run_not_found'],
    ['a webhook refusal', '/webhooks/workflow/no-such-trigger', { method: 'POST', headers: json, body: '{}' }, 'webhook_trigger_not_found'],
  ])('over HTTP: %s', async (_what, path, init, code) => {
    const response = await doors.server.fetch(path, init);
    const status = response.status;
    expectBuiltBody(status, await expectErrorResponse(response, statusOf(code), code), code);
  });

  it.each<[string, 'GET' | 'POST' | 'DELETE', string, unknown, ErrorCode]>([
    ['an unknown route', 'GET', '/api/no-such-route', undefined, 'route_not_found'],
    ['a method the path does not take', 'DELETE', '/api/health', undefined, 'method_not_allowed'],
    ['an ill-typed body', 'POST', '/api/workflows/validate', { nothing: true }, 'invalid_request'],
    ['a domain error', 'GET', '/api/workflows/runs/run_no_such_run', undefined, 'run_not_found'],
  ])('in process: %s', async (_what, method, path, body, code) => {
    const answer = await doors.local.send({ method, path, body });
    expectBuiltBody(answer.status, answer.body as Record<string, unknown>, code);
  });
});
