/**
 * Every error code an answer can carry. The domain throws them (as DomainError), the edges answer
 * them; each has its HTTP status in one table (shared/error-answer.ts), which the compiler holds
 * to this list: a code added here without a status does not build (docs/decisions.md, "Errors").
 */
export const ERROR_CODES = [
  // The request as asked: malformed, ill-typed, or refused.
  'invalid_request',
  'invalid_json',
  'invalid_since',
  'invalid_until',
  'invalid_limit',
  'invalid_idempotency_key',
  'ambiguous_run_id',
  'ambiguous_workspace',
  'from_run_without_worktree',
  'from_run_other_workspace',
  'clone_failed',
  'request_error',
  'invalid_signature',
  'host_refused',
  'cross_origin_refused',
  'bundled_workflow_readonly',
  'method_not_allowed',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'request_header_too_large',
  'invalid_run_field',
  'unknown_assistant',
  // Something named that does not exist.
  'route_not_found',
  'run_not_found',
  'node_not_found',
  'workflow_not_found',
  'workspace_not_found',
  'env_key_not_found',
  'branch_not_found',
  'conversation_not_found',
  'webhook_trigger_not_found',
  // The state of things does not allow it.
  'invalid_run_state',
  'run_active',
  'budget_exceeded',
  'no_worktree',
  'worktree_gone',
  'worktree_elsewhere',
  'worktree_failed',
  'workspace_exists',
  'workspace_in_use',
  'workspace_path_missing',
  'workspace_clone_failed',
  'merge_failed',
  'merge_conflict',
  'not_fast_forward',
  'dirty_checkout',
  'into_moved',
  'already_queued',
  'push_failed',
  'gh_unavailable',
  'pr_failed',
  'pr_not_found',
  'pr_not_followed',
  'not_needs_human',
  'pr_busy',
  'conversation_deleted',
  'idempotency_key_conflict',
  'workflow_not_available',
  'database_not_empty',
  'workflow_test_unavailable',
  'not_waiting',
  // Well-formed, but not something that may be done.
  'invalid_workflow',
  'env_leak_blocked',
  'invalid_fixture',
  'permissions_above_workflow',
  // Not available right now.
  'dashboard_unavailable',
  'webhook_secret_missing',
  'webhook_secret_weak',
  // A bug: never caused by input.
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Failures a client meets before any svc answer exists (no server, a broken exchange, the CLI's
 * own refusal: a usage error, a prompt cancelled or left unanswered). They have no HTTP status, but
 * a front end that reports errors as bodies (`--json`, the MCP tools) gives them the same shape
 * through the one builder.
 */
export const CLIENT_FAILURE_CODES = ['server_unreachable', 'server_exchange_failed', 'usage_error', 'cancelled', 'svc_error'] as const;

export type ClientFailureCode = (typeof CLIENT_FAILURE_CODES)[number];

/**
 * The one error type the domain throws for expected failures: a code and a sentence, no HTTP
 * status. Each front end maps it: the server to the status of its code and the one error body
 * (shared/error-answer.ts), the CLI to a message and an exit code (docs/decisions.md, "Errors").
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  /** Extra top-level members of the body (e.g. `errors` for 422 invalid_workflow). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: unknown, extra?: Record<string, unknown>) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.extra = extra;
  }
}

/**
 * True for a DomainError from any copy of this module. The CLI loads the domain from the esbuild
 * bundle `dist/runtime.js`, which has its own DomainError class, so `instanceof` against this
 * file's class would miss errors thrown in there: the check is on the name and shape instead.
 */
export function isDomainError(value: unknown): value is DomainError {
  if (value instanceof DomainError) return true;
  if (!(value instanceof Error) || value.name !== 'DomainError') return false;
  return typeof (value as Partial<DomainError>).code === 'string';
}
