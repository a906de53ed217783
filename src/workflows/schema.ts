/**
 * The workflow YAML of docs/contract.md, "Workflow files", in two shapes kept apart on purpose:
 *
 * 1. The RAW shape — zod schemas of exactly what a person writes (snake_case, optional fields,
 *    durations as written). Strict objects: an unknown key is an error, because it is almost
 *    always a typo that would otherwise be silently ignored.
 * 2. The NORMALIZED shape — `WorkflowDefinition` and friends: what the rest of svc works with
 *    (camelCase, defaults applied, durations in ms, `when` parsed, one discriminated `action`).
 *    Built by `toWorkflow` (normalize.ts) from a raw workflow that passed validation.
 *
 * Field-level rules (types, patterns, ranges, durations) live here; rules that relate fields or
 * nodes to each other (exactly one action, unique ids, dependencies, references, unique slugs)
 * live in semantic-checks.ts. `validateWorkflowSource` (validate.ts) runs both.
 *
 * A complete example:
 *
 * ```yaml
 * name: fix-and-test
 * description: Plan a fix, apply it, test it, ask before shipping
 * assistant: claude                 # default for every agent node
 * permissions: read                 # what agent nodes may do (read, edit, full); default edit
 * env: { allow: [GITHUB_TOKEN] }     # server variables given beyond the base set (agents never inherit)
 * nodes:
 *   - id: plan
 *     prompt: "Plan a fix for: $ARGUMENTS"
 *     model: opus                    # overrides the workflow default for this node
 *   - id: implement
 *     permissions: edit              # overrides the workflow's
 *     command: implement             # the prompt in .svc/commands/implement.md
 *     depends_on: [plan]
 *     timeout: 30m
 *     idle_timeout: 5m               # no output for 5m → stopped, failed `stalled`
 *   - id: test
 *     bash: npm test -- --reporter=dot
 *     depends_on: [implement]
 *     timeout: 600                   # seconds
 *     env: { inherit: false }        # a bash node inherits the server's environment unless it says so
 *     retry: { max_attempts: 2, delay: 5s }
 *   - id: gate
 *     approval: { message: "Tests say: $test.output — ship it?" }
 *     depends_on: [test]
 *     when: "$test.output != 'skip'"
 *     trigger_rule: all_success
 * triggers:
 *   webhook:
 *     - event: push
 *       slug: on-push
 *       secret_env: PUSH_SECRET
 *       idempotency_key: delivery_id
 *       dedupe_window_sec: 3600
 *       filter: { ref: refs/heads/main }
 * ```
 */

import * as z from 'zod';
import { ENV_NAME_PATTERN } from '../shared/settings.js';
import { DEFAULT_NODE_PERMISSIONS, PERMISSIONS, type Permissions } from '../shared/permissions.js';
import type { AssistantName } from '../shared/assistants.js';
import { AssistantSchema } from './assistant-name.js';
import { approvalFormHint, describeValue, quoteValue } from './problems.js';
import { durationSchema, sizeSchema } from './value-schemas.js';
import type { WhenExpr } from './when.js';
import { RawSandboxSchema, type SandboxWidening } from './sandbox.js';
import { rawLandingKeys } from './landing-keys.js';

export { REWORK_MODES, type ReworkMode } from './landing-keys.js';

// ---------------------------------------------------------------------------------------------
// Names, enumerations and defaults
// ---------------------------------------------------------------------------------------------

export const WORKFLOW_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const NODE_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
export const WEBHOOK_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const SECRET_ENV_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
/** A command is a file stem in a commands directory: no separators, no leading dot, so never a path. */
export const COMMAND_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * A workflow name (its file is `.svc/workflows/<name>.yaml`): the one check of a name, used by the
 * YAML's `name`, the API's `{name}` and the CLI, so the rule and its message are the same everywhere.
 */
export const WorkflowNameSchema = z.string().regex(WORKFLOW_NAME_PATTERN, {
  error: (issue) =>
    `invalid workflow name ${quoteValue(issue.input)}: lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
});

export const TRIGGER_RULES = ['all_success', 'one_success', 'all_done', 'none_failed_min_one_success'] as const;
/** The keys that make a node do something; a node has exactly one of them. */
export const NODE_ACTIONS = ['prompt', 'bash', 'approval', 'command', 'wait'] as const;

/** The keys whose node runs an agent, and so may say what it is allowed to do (`permissions`). */
export const AGENT_ACTIONS = ['prompt', 'command'] as const;
export { DEFAULT_NODE_PERMISSIONS, PERMISSIONS, type Permissions };

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_TRIGGER_RULE: TriggerRule = 'all_success';
export const DEFAULT_DEDUPE_WINDOW_SEC = 3600;
export const MAX_RETRY_ATTEMPTS = 10;
export { MAX_DURATION_MS } from './value-schemas.js';

// ---------------------------------------------------------------------------------------------
// Raw shape (what the YAML says)
// ---------------------------------------------------------------------------------------------

const nonEmptyText = z.string().min(1, { error: 'must not be empty' });

// `approval: "ship?"` is the natural first try (issue 32): its message says the form an approval takes.
export const RawApprovalSchema = z.strictObject({ message: nonEmptyText }, { error: (issue) => approvalFormHint(issue.code, issue.input) });

/** An event name a signal delivers (`svc signal <run> <event>`, a webhook's `signal:`). */
export const EVENT_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

export const EventNameSchema = z.string().regex(EVENT_NAME_PATTERN, {
  error: (issue) => `invalid event name ${quoteValue(issue.input)}: letters, digits, '.', '_' and '-', at most 64 characters`,
});

/**
 * A durable wait (docs/decisions.md, "Waits and signals"): `for` a duration, or until a signal of
 * `event` arrives (failing `wait_timeout` after `timeout`, when given). Exactly one of `for` and
 * `event` (semantic-checks.ts).
 */
export const RawWaitSchema = z.strictObject({
  for: durationSchema('wait').optional(),
  event: EventNameSchema.optional(),
  timeout: durationSchema('wait').optional(),
});

export const RawRetrySchema = z.strictObject({
  max_attempts: z
    .int()
    .min(1, { error: `must be from 1 to ${MAX_RETRY_ATTEMPTS} (the total number of attempts)` })
    .max(MAX_RETRY_ATTEMPTS, { error: `must be from 1 to ${MAX_RETRY_ATTEMPTS} (the total number of attempts)` }),
  delay: durationSchema('delay').optional(),
});

const envNameSchema = z.string().regex(ENV_NAME_PATTERN, {
  error: (issue) =>
    `invalid variable name ${quoteValue(issue.input)}: letters, digits and '_', not starting with a digit; a trailing '*' allows every name with that prefix`,
});

/**
 * Which of the server's environment variables a process gets beyond the base set
 * (docs/contract.md, "Least-privilege environment"); `inherit` is for bash nodes.
 */
export const RawNodeEnvSchema = z.strictObject({
  allow: z.array(envNameSchema).optional(),
  inherit: z.boolean().optional(),
});

export const RawWorkflowEnvSchema = z.strictObject({
  allow: z.array(envNameSchema).optional(),
});

export const RawNodeSchema = z.strictObject({
  id: z.string().regex(NODE_ID_PATTERN, {
    error: (issue) => `invalid node id ${quoteValue(issue.input)}: start with a letter or '_', then letters, digits, '_' or '-'`,
  }),
  prompt: nonEmptyText.optional(),
  bash: nonEmptyText.optional(),
  approval: RawApprovalSchema.optional(),
  wait: RawWaitSchema.optional(),
  command: z
    .string()
    .regex(COMMAND_NAME_PATTERN, {
      error: (issue) => `invalid command name ${quoteValue(issue.input)}: the stem of a .md file in a commands folder, e.g. 'review'`,
    })
    .optional(),
  depends_on: z.array(z.string()).optional(),
  when: z.string().optional(),
  trigger_rule: z.enum(TRIGGER_RULES).optional(),
  timeout: durationSchema('timeout').optional(),
  idle_timeout: durationSchema('idle_timeout').optional(),
  retry: RawRetrySchema.optional(),
  assistant: AssistantSchema.optional(),
  model: nonEmptyText.optional(),
  permissions: z.enum(PERMISSIONS).optional(),
  /** An agent node: what widens its agent's sandbox. A bash node: `true`/`false` or the same object (docs/workflows.md, "Sandbox"). */
  sandbox: z
    .union([z.boolean(), RawSandboxSchema], {
      error: (issue) => (typeof issue.input === 'object' ? undefined : `expected true, false or { network, read, write }, got ${describeValue(issue.input)}`),
    })
    .optional(),
  env: RawNodeEnvSchema.optional(),
  continue_on_error: z.boolean().optional(),
  max_memory: sizeSchema.optional(),
  /** What the node is expected to need: the estimate memory admission counts it at (docs/workflows.md, "memory"). */
  memory: sizeSchema.optional(),
});

export const RawWebhookTriggerSchema = z.strictObject({
  event: nonEmptyText,
  slug: z.string().regex(WEBHOOK_SLUG_PATTERN, {
    error: (issue) => `invalid slug ${quoteValue(issue.input)}: lowercase letters, digits and '-', starting with a letter or digit, at most 64 characters`,
  }),
  // The value is deliberately not echoed: a malformed "name" is often the secret itself.
  secret_env: z.string().regex(SECRET_ENV_PATTERN, {
    error: 'must be the NAME of the environment variable holding the secret (A-Z, 0-9, _; not starting with a digit), never the secret itself',
  }),
  idempotency_key: nonEmptyText,
  dedupe_window_sec: z.int().min(1, { error: 'must be at least 1 (second)' }).optional(),
  filter: z
    .record(
      z.string(),
      z.union([z.string(), z.number(), z.boolean()], { error: (issue) => `expected a string, number or boolean, got ${describeValue(issue.input)}` }),
    )
    .optional(),
  /** Signal this event to the run named by the payload's `run_field` instead of starting a run (docs/decisions.md, "Waits and signals"). */
  signal: EventNameSchema.optional(),
  run_field: nonEmptyText.optional(),
});

export const SCHEDULE_OVERLAPS = ['skip', 'queue'] as const;

/** A schedule (docs/decisions.md, "Schedules"); the cron expression and time zone are checked in semantic-checks.ts. */
export const RawScheduleTriggerSchema = z.strictObject({
  cron: nonEmptyText,
  timezone: nonEmptyText.optional(),
  message: z.string().optional(),
  overlap: z.enum(SCHEDULE_OVERLAPS).optional(),
});

export const RawTriggersSchema = z.strictObject({
  webhook: z.array(RawWebhookTriggerSchema).optional(),
  schedule: z.array(RawScheduleTriggerSchema).optional(),
});

export const RawWorkflowSchema = z.strictObject({
  name: WorkflowNameSchema,
  description: z.string(),
  assistant: AssistantSchema.optional(),
  model: nonEmptyText.optional(),
  commit: z.boolean().optional(),
  permissions: z.enum(PERMISSIONS).optional(),
  sandbox: RawSandboxSchema.optional(),
  idle_timeout: durationSchema('idle_timeout').optional(),
  env: RawWorkflowEnvSchema.optional(),
  /** The run's spend cap in USD (docs/decisions.md, "Spend cap"). */
  max_cost_usd: z.number().positive({ error: 'must be more than 0 (USD)' }).optional(),
  /** Resume its runs by themselves when an agent's usage limit resets (docs/decisions.md, "Auto-resume"). */
  auto_resume: z.boolean().optional(),
  /** Each process node's memory limit unless it sets its own (docs/workflows.md, "max_memory"). */
  max_memory: sizeSchema.optional(),
  ...rawLandingKeys(WorkflowNameSchema),
  nodes: z.array(RawNodeSchema).min(1, { error: 'a workflow needs at least one node' }),
  triggers: RawTriggersSchema.optional(),
});

export type RawWorkflow = z.infer<typeof RawWorkflowSchema>;
export type RawNode = z.infer<typeof RawNodeSchema>;
export type RawWebhookTrigger = z.infer<typeof RawWebhookTriggerSchema>;
export type RawScheduleTrigger = z.infer<typeof RawScheduleTriggerSchema>;

/**
 * The keys allowed in the mapping at `path` of a raw workflow (for "did you mean" on unknown
 * keys), or [] where any key goes (`filter`).
 */
export function knownKeysAt(path: readonly (string | number)[]): readonly string[] {
  const shape = (schema: { shape: object }): string[] => Object.keys(schema.shape);
  const [first, second, third] = path;
  if (path.length === 0) return shape(RawWorkflowSchema);
  if (first === 'nodes' && path.length === 2) return shape(RawNodeSchema);
  if (first === 'nodes' && path.length === 3 && third === 'retry') return shape(RawRetrySchema);
  if (first === 'nodes' && path.length === 3 && third === 'approval') return shape(RawApprovalSchema);
  if (first === 'nodes' && path.length === 3 && third === 'env') return shape(RawNodeEnvSchema);
  if (first === 'nodes' && path.length === 3 && third === 'wait') return shape(RawWaitSchema);
  if (first === 'env' && path.length === 1) return shape(RawWorkflowEnvSchema);
  if (first === 'triggers' && path.length === 1) return shape(RawTriggersSchema);
  if (first === 'triggers' && second === 'webhook' && path.length === 3) return shape(RawWebhookTriggerSchema);
  if (first === 'triggers' && second === 'schedule' && path.length === 3) return shape(RawScheduleTriggerSchema);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Normalized shape (what svc runs)
// ---------------------------------------------------------------------------------------------

export type Assistant = AssistantName;
export type TriggerRule = (typeof TRIGGER_RULES)[number];
export type NodeActionKind = (typeof NODE_ACTIONS)[number];
export type FilterValue = string | number | boolean;

/** What a node does. `approval` pauses the run until a person approves or rejects. */
export type NodeAction =
  | { readonly kind: 'prompt'; readonly prompt: string }
  | { readonly kind: 'bash'; readonly bash: string }
  | { readonly kind: 'approval'; readonly message: string }
  | { readonly kind: 'command'; readonly command: string }
  /** A durable wait: `forMs` after it starts, or until a signal of `event` (failing after `timeoutMs`, if set). */
  | { readonly kind: 'wait'; readonly forMs?: number; readonly event?: string; readonly timeoutMs?: number };

export interface RetryPolicy {
  /** Total attempts, the first included: 1 means no retry. */
  readonly maxAttempts: number;
  readonly delayMs: number;
}

export interface WorkflowNode {
  readonly id: string;
  readonly action: NodeAction;
  /** Ids of the nodes this one waits for (duplicates removed). */
  readonly dependsOn: readonly string[];
  /** The parsed `when` condition; undefined means "always". */
  readonly when: WhenExpr | undefined;
  /** `when` as written, for logs and skip reasons. */
  readonly whenSource: string | undefined;
  readonly triggerRule: TriggerRule;
  /** Limit on one execution attempt of the node's action. */
  readonly timeoutMs: number;
  /**
   * No output for this long stops an attempt (`stalled`): the node's `idle_timeout`, else (agent
   * nodes) the workflow's. Undefined: an agent node gets the server's default
   * (`SVC_AGENT_IDLE_TIMEOUT_MS`), a bash node none.
   */
  readonly idleTimeoutMs: number | undefined;
  readonly retry: RetryPolicy;
  /** The node's assistant, else the workflow's; undefined leaves the choice to the server's configuration. */
  readonly assistant: Assistant | undefined;
  /** The node's model, else the workflow's; undefined means the assistant's configured model. */
  readonly model: string | undefined;
  /** What the node's agent may do: the node's, else the workflow's, else `edit`; undefined for bash, approval and wait nodes. */
  readonly permissions: Permissions | undefined;
  /** What the workflow's and the node's `sandbox:` widen the node's sandbox by (an agent's, or a sandboxed bash node's); absent when neither says anything. */
  readonly sandbox?: SandboxWidening;
  /**
   * Bash nodes: `true` when the node asks for a sandbox (`sandbox: true` or a widening), `false`
   * when it declines one (`sandbox: false`); absent: the server's default (`SVC_SANDBOX_BASH`) and
   * the run's (values from outside) decide (docs/decisions.md, "Bash nodes in a sandbox").
   */
  readonly bashSandbox?: boolean;
  /**
   * The server's variables allowed beyond the base set: the workflow's `env.allow` and the node's
   * (absent, like `envInherit`, in the snapshots of runs started before they existed: none).
   */
  readonly envAllow?: readonly string[];
  /** `false` when a bash node says `env: { inherit: false }`; a bash node otherwise gets the server's whole environment, an agent never. */
  readonly envInherit?: boolean;
  /** `continue_on_error: true`: its failure is tolerated — the run can still complete, dependents run as after a success. */
  readonly continueOnError?: boolean;
  /** `max_memory` (the node's, else the workflow's) in bytes, on process nodes: past it the node is stopped, `memory_exceeded`. */
  readonly maxMemoryBytes?: number;
  /** `memory:` in bytes, on process nodes: what svc admits it at before it starts (memory-admission.ts). */
  readonly memoryBytes?: number;
}

export interface WebhookTrigger {
  readonly event: string;
  readonly slug: string;
  /** Name of the environment variable holding the signing secret. */
  readonly secretEnv: string;
  /** Name of the payload field whose value is the idempotency key. */
  readonly idempotencyKey: string;
  readonly dedupeWindowSec: number;
  /** Payload field → expected value; empty means "every event". */
  readonly filter: Readonly<Record<string, FilterValue>>;
  /**
   * A delivery signals this event to a waiting run instead of starting one: the run whose id is the
   * payload's `runField` (both set, or neither: semantic-checks.ts).
   */
  readonly signal?: { readonly event: string; readonly runField: string };
}

export interface ScheduleTrigger {
  /** Five or six fields (seconds first when six), as croner reads them. */
  readonly cron: string;
  /** An IANA zone; undefined means the server's. */
  readonly timezone: string | undefined;
  /** The run's message; undefined means `scheduled: <cron>`. */
  readonly message: string | undefined;
  /** While the previous scheduled run is not terminal: `skip` starts none, `queue` starts one when it ends. */
  readonly overlap: (typeof SCHEDULE_OVERLAPS)[number];
}

export interface WorkflowDefinition {
  readonly name: string;
  readonly description: string;
  /** Workflow-wide defaults, already applied to each node. */
  readonly assistant: Assistant | undefined;
  readonly model: string | undefined;
  /** In a run's worktree, svc commits what each node changed (docs/decisions.md, "A commit per node, and the diff"); `commit: false` turns it off. */
  readonly commit: boolean;
  /** As written; each agent node's own is already resolved. */
  readonly permissions: Permissions | undefined;
  /** `idle_timeout` as written, in ms; already applied to each agent node that sets none. */
  readonly idleTimeoutMs: number | undefined;
  /** `max_cost_usd`: the spend cap of its runs (a run's own may be lower); undefined means none. */
  readonly maxCostUsd: number | undefined;
  /** `auto_resume` as written; undefined: the server's `SVC_AUTO_RESUME_ON_LIMIT` decides. */
  readonly autoResume: boolean | undefined;
  /** In the order written; see `topologicalOrder` for an execution order. */
  readonly nodes: readonly WorkflowNode[];
  /** `schedule` is present only when the workflow has schedules. */
  readonly triggers: { readonly webhook: readonly WebhookTrigger[]; readonly schedule?: readonly ScheduleTrigger[] };
}
