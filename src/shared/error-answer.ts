import type { ClientFailureCode, DomainError, ErrorCode } from './errors.js';

/**
 * The HTTP status of every error code: the one place a code becomes a status. `satisfies` makes a
 * code without a status (or a status for no code) a compile error. It lives in shared/ so that
 * every edge reads the same table: the server's dispatcher and h3 door, Node's parser errors, and
 * the webhook delivery history, which records the status each delivery was answered with.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_since: 400,
  invalid_until: 400,
  invalid_limit: 400,
  invalid_idempotency_key: 400,
  ambiguous_run_id: 400,
  ambiguous_workspace: 400,
  from_run_without_worktree: 400,
  from_run_other_workspace: 400,
  // Registering a url git cannot clone: the url given is the problem.
  clone_failed: 400,
  // h3's own client errors keep h3's status (server/error-response.ts); 400 is the family.
  request_error: 400,
  invalid_run_field: 400,
  // A conversation or a node naming an assistant the configuration does not have.
  unknown_assistant: 400,
  invalid_signature: 401,
  host_refused: 403,
  cross_origin_refused: 403,
  bundled_workflow_readonly: 403,
  route_not_found: 404,
  run_not_found: 404,
  node_not_found: 404,
  workflow_not_found: 404,
  workspace_not_found: 404,
  env_key_not_found: 404,
  branch_not_found: 404,
  conversation_not_found: 404,
  webhook_trigger_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_run_state: 409,
  run_active: 409,
  budget_exceeded: 409,
  no_worktree: 409,
  worktree_gone: 409,
  worktree_elsewhere: 409,
  worktree_failed: 409,
  workspace_exists: 409,
  workspace_in_use: 409,
  workspace_path_missing: 409,
  // A registered workspace this server cannot clone for a run: the url was fine when registered.
  workspace_clone_failed: 409,
  merge_failed: 409,
  merge_conflict: 409,
  not_fast_forward: 409,
  dirty_checkout: 409,
  into_moved: 409,
  already_queued: 409,
  push_failed: 409,
  gh_unavailable: 409,
  pr_failed: 409,
  pr_not_found: 409,
  // Resuming a pull request (`POST …/pr/resume`): none followed, or it does not need a person.
  pr_not_followed: 409,
  not_needs_human: 409,
  // Another look changed the follow at every try: asked again, it goes through.
  pr_busy: 409,
  conversation_deleted: 409,
  idempotency_key_conflict: 409,
  workflow_not_available: 409,
  database_not_empty: 409,
  workflow_test_unavailable: 409,
  not_waiting: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_workflow: 422,
  env_leak_blocked: 422,
  invalid_fixture: 422,
  permissions_above_workflow: 422,
  request_header_too_large: 431,
  internal_error: 500,
  dashboard_unavailable: 503,
  webhook_secret_missing: 503,
  webhook_secret_weak: 503,
} as const satisfies Record<ErrorCode, number>;

/** The HTTP status a code is answered with. */
export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** The contract's error body: `{ error, message, details?, ...extra }` (docs/contract.md, "Errors"). */
export interface ErrorBody {
  error: ErrorCode | ClientFailureCode;
  message: string;
  details?: unknown;
  [member: string]: unknown;
}

/** An error as the edges answer it: the status of its code and its body. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
}

/**
 * The one function that builds an error body: every error answer, from any door, is made here.
 * `details` is left out when there is none (never `details: undefined` on the wire).
 */
export function errorBody(code: ErrorCode | ClientFailureCode, message: string, details?: unknown, extra?: Record<string, unknown>): ErrorBody {
  return { error: code, message, ...(details === undefined ? {} : { details }), ...extra };
}

/** A domain error as an answer: its code's status and the one body. */
export function errorAnswer(error: Pick<DomainError, 'code' | 'message' | 'details' | 'extra'>): ErrorAnswer {
  return { status: statusOf(error.code), body: errorBody(error.code, error.message, error.details, error.extra) };
}
