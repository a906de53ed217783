import * as z from 'zod';
import { RunSetupSchema } from './setup-schema.js';
import { TOOLS_DENIED_KEPT } from '../../agents/index.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { TRACEPARENT_PATTERN } from '../../shared/traceparent.js';
import { EventNameSchema } from '../../workflows/index.js';
import { NODE_STATUSES, RUN_STATUSES, TRIGGER_KINDS, type RunStatus } from './statuses.js';

/**
 * The shapes of runs, once: the TypeScript types (types.ts) are inferred from these schemas, and
 * the API's response schemas (and so the OpenAPI document) are these schemas.
 */

/** Run states. Terminal ones never change again, except by deletion. */
export const RunStatusSchema = z.enum(RUN_STATUSES);

/** A query's comma-separated run states (`failed,cancelled`), checked against the list. */
export const RunStatusListSchema = z.string().transform((value, issue) => {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = parts.filter((s) => !(RUN_STATUSES as readonly string[]).includes(s));
  if (bad.length) issue.addIssue({ code: 'custom', message: `unknown status ${bad.join(', ')}; use ${RUN_STATUSES.join(', ')}` });
  return parts as RunStatus[];
});

export const NodeStatusSchema = z.enum(NODE_STATUSES);

export const TriggerKindSchema = z.enum(TRIGGER_KINDS);

/** What a node's range of commits changed (docs/decisions.md, "A commit per node, and the diff"). */
export const NodeChangesSchema = z.object({
  files: z.number().int(),
  insertions: z.number().int(),
  deletions: z.number().int(),
});

/** What svc measured of a process tree (docs/decisions.md, "What a run costs the machine"); absent where /proc is not available. */
const measured = z.number().nonnegative().nullable().optional();

export const NodeStateSchema = z.object({
  status: NodeStatusSchema,
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  costUsd: z.number().nullable(),
  output: z
    .string()
    .nullable()
    .describe(
      "capped at 64 KiB; the whole output (at most 16 MiB: a longer one fails the node with `output_too_large`) is in the run's artifacts (`<node>.out`)",
    ),
  outputTruncated: z.boolean().optional().describe('true when `output` holds only the first 64 KiB of the output; `<node>.out` has all of it'),
  logTruncated: z
    .boolean()
    .optional()
    .describe(
      "true when the node's log (`<node>.log` in the run's artifacts) reached its 32 MiB limit: it ends with a marker line, and what the node printed after it is not kept",
    ),
  error: z.string().nullable(),
  logTail: z
    .string()
    .optional()
    .describe(
      "a failed node: the last lines of what it printed (stdout and stderr as they came, svc's retry notes; at most 20 lines and 4 KiB), so the failure is readable without the log; `<node>.log` has all of it (`GET …/nodes/{nodeId}/log`, `svc runs logs`)",
    ),
  tolerated: z
    .boolean()
    .optional()
    .describe(
      'a failed node with `continue_on_error: true`: its failure does not fail the run (which completes when everything else succeeds), and its dependents run as after a success, its stdout as `$<id>.output`',
    ),
  errorCode: z
    .string()
    .optional()
    .describe(
      'a failed node (or one the run stopped for a code, `budget_exceeded`): why, as a stable code — `stalled`, `timeout`, `exit_code`, `usage_limit`, `output_too_large`, `wait_timeout`, `agent_failed`, `interrupted`, …; `error` says it in words',
    ),
  resumeAt: z
    .string()
    .optional()
    .describe("a node failed `usage_limit`: when its agent's limit resets (ISO), as the agent said, else `SVC_USAGE_LIMIT_RETRY_MS` after the hit"),
  attempts: z.number().int(),
  tokens: z
    .object({
      input: z.number(),
      output: z.number(),
      cachedInput: z.number().optional().describe("codex: the part of `input` served from the provider's cache"),
    })
    .nullable()
    .optional(),
  reason: z.string().optional().describe('why the node was skipped (trigger rule, `when`)'),
  model: z.string().nullable().optional(),
  toolCalls: z.number().int().optional().describe("prompt and command nodes: the tool calls its agent made (every attempt's)"),
  toolsDenied: z
    .array(z.string())
    .optional()
    .describe(`one-line summaries of the tool calls the agent was refused (\`Write src/a.ts\`), the first ${TOOLS_DENIED_KEPT}`),
  toolsDeniedCount: z.number().int().optional().describe('how many tool calls the agent was refused, all of them'),
  baseCommit: z.string().nullable().optional().describe("in a run's worktree: HEAD when the node started"),
  commit: z.string().nullable().optional().describe("in a run's worktree: the node's last commit (svc's, or its agent's own); null when it changed nothing"),
  changes: NodeChangesSchema.nullable().optional().describe("in a run's worktree: what the node's commits changed (from `baseCommit` to `commit`)"),
  permissions: z
    .enum(PERMISSIONS)
    .optional()
    .describe('agent nodes, once started: what the agent was allowed to do (read, edit, full; docs/decisions.md, Agents)'),
  sandbox: z
    .enum(['on', 'off'])
    .optional()
    .describe(
      "agent nodes, once started: whether its agent ran in its OS sandbox (`on`), or not (`off`, with `sandboxOff`); bash nodes: `on` when sandboxed, `off` when one was declined or turned off, absent when none was asked for (docs/decisions.md, 'Agents in a sandbox', 'Bash nodes in a sandbox')",
    ),
  sandboxDenied: z.number().int().optional().describe('a sandboxed node: how many refusals of its sandbox were seen (`sandbox_denied` events)'),
  peakRssBytes: measured.describe("a node that ran a process: its process tree's peak resident memory in bytes (sampled from /proc; every attempt's)"),
  cpuSeconds: measured.describe("a node that ran a process: the CPU time (user + system) of its tree's processes svc saw, every attempt's, in seconds"),
  maxMemoryBytes: z.number().int().optional().describe('a node with `max_memory`: its limit in bytes; past it the node is stopped and fails `memory_exceeded`'),
  sandboxWarning: z
    .string()
    .optional()
    .describe(
      "`sandbox: on`, but weaker than svc's policy, and why: a Codex older than the permission profiles svc uses ran with `--sandbox` (reads not confined)",
    ),
  sandboxOff: z.string().optional().describe('`sandbox: off`: why — `level full`, `SVC_SANDBOX=off`, or (a bash node) `sandbox: false`'),
  waitingFor: z
    .enum(['agent_slot', 'memory'])
    .optional()
    .describe(
      "a started node whose process has not started yet, `waiting` until it has an agent slot (`agent_slot`: SVC_MAX_CONCURRENT_AGENTS, the assistant's maxConcurrent) or its estimate fits the server's memory budget (`memory`: SVC_MEMORY_BUDGET); absent once it has it (and is `running` again)",
    ),
  waitUntil: z
    .string()
    .optional()
    .describe('a wait node: when its `for` ends, or when its event wait times out (ISO); absent for an event wait without a timeout'),
  waitEvent: z.string().optional().describe('a wait node waiting for an event: the event a signal must name (`POST …/signal`)'),
  envGiven: z
    .array(z.string())
    .optional()
    .describe(
      "agent nodes and bash nodes with `env: { inherit: false }`, once started: the names of the environment variables the process got beyond the base set (the run's variables, the workspace's env values, the allowed ones; never values)",
    ),
});

/** A page of a node's log (`GET …/nodes/{nodeId}/log`; docs/decisions.md, "Node output"). */
export const NodeLogPageSchema = z.object({
  runId: z.string(),
  nodeId: z.string(),
  status: NodeStatusSchema.describe("the node's state when the page was read: once it is no longer `running` (or `waiting`, `pending`), the log is complete"),
  text: z.string().describe('the log from `offset`, whole characters only; empty when the node printed nothing (yet)'),
  offset: z.number().int(),
  nextOffset: z.number().int().describe('where the next page starts; equal to `size` once everything written so far was read'),
  size: z.number().int().describe('the size of the log in bytes when it was read (at most 32 MiB and its marker line)'),
});

/** A run's branch merged into a branch of its workspace (docs/decisions.md, "Landing a run: merge, push, pull request"). */
export const RunMergedSchema = z.object({
  into: z.string().describe('the branch merged into'),
  commit: z.string().describe('the commit `into` points at after the merge'),
  strategy: z.enum(['merge', 'squash', 'fast-forward']).describe('the strategy asked for (with alreadyLanded, none was needed)'),
  alreadyLanded: z
    .boolean()
    .optional()
    .describe('true: the branch was in `into` already (merged, squashed or cherry-picked by hand); svc recorded it and changed nothing'),
  at: z.string(),
});

export const RunPullRequestSchema = z.object({
  url: z.string().describe('the URL gh printed'),
  base: z.string().describe('the branch it asks to merge into'),
  at: z.string(),
});

/** What the API and the CLI show of a run (`toRunView`): the record without its definition snapshot. */
export const RunViewSchema = z.object({
  id: z.string(),
  workflow: z.string(),
  status: RunStatusSchema,
  message: z.string(),
  conversationId: z.string().nullable(),
  platformId: z.string().describe('the worker conversation of the run'),
  workspaceId: z.string().nullable(),
  cwd: z.string(),
  trigger: TriggerKindSchema,
  outside: z
    .enum(['mcp', 'remote'])
    .optional()
    .describe(
      "who chose the start's values when not the local user: an agent through `svc mcp`, or another machine (a request from a non-loopback address); such a run's bash nodes run in a sandbox, as a webhook's do",
    ),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  updatedAt: z.string().describe('last change of any kind'),
  error: z.string().nullable(),
  errorCode: z
    .string()
    .nullable()
    .optional()
    .describe(
      "why a failed run failed, as a stable code: where svc stopped it itself (`budget_exceeded`, `interrupted`), an agent hit its usage limit (`usage_limit`, with `resumeAt`), else its first failed node's `errorCode` (`stalled`, `exit_code`, …); null when no code is known (a worktree setup that failed); `error` says it in words",
    ),
  costUsd: z.number().nullable(),
  resumeAt: z
    .string()
    .nullable()
    .optional()
    .describe("a run failed on an agent's usage limit: when the last of its limits resets (ISO), the time a resume can succeed (docs/decisions.md, Runs)"),
  autoResumeAt: z
    .string()
    .nullable()
    .optional()
    .describe(
      'the appointment of a run failed on a usage limit with auto-resume on: the server resumes it then (ISO), skipping its completed nodes; null once kept or called off (docs/decisions.md, Runs: "Auto-resume")',
    ),
  wakeAt: z
    .string()
    .nullable()
    .optional()
    .describe(
      'when the server does something to the run on its own (ISO): a waiting run continues (the earliest `waitUntil` of its waiting nodes; null while it waits only for events), a failed run with an auto-resume appointment is resumed (its `autoResumeAt`)',
    ),
  maxCostUsd: z
    .number()
    .nullable()
    .optional()
    .describe("the run's spend cap in USD: the smaller of the workflow's `max_cost_usd` and the start's `maxCostUsd`, or a resume's (docs/decisions.md, Runs)"),
  permissions: z
    .enum(PERMISSIONS)
    .nullable()
    .optional()
    .describe("the run's own permissions, given at its start: the most any of its agents may do (each node at most this); null or absent: the workflow's"),
  spentUsd: z
    .number()
    .optional()
    .describe(
      "what the run's agents reported spending, every attempt of every node across resumes (what the cap counts); `costUsd` is its completed nodes' cost",
    ),
  costPartial: z
    .boolean()
    .optional()
    .describe('true when an agent of the run reported no cost (codex reports tokens only): `spentUsd` and the cap do not see that spend'),
  peakRssBytes: measured.describe("the peak of the summed resident memory of the run's nodes running at once, in bytes"),
  nodes: z.record(z.string(), NodeStateSchema),
  resumePending: z.boolean().describe('marked by resume: the next start of this workflow in this conversation continues the run'),
  rejectReason: z.string().nullable().optional(),
  branch: z.string().nullable().optional().describe("the run's branch `svc/<runId>` in its workspace; null outside a git worktree"),
  baseCommit: z.string().nullable().optional().describe("the commit the run's worktree started from"),
  headCommit: z.string().nullable().optional().describe("the branch's commit after the run's latest node"),
  merged: RunMergedSchema.optional().describe("the run's branch merged (`POST …/merge`): the latest merge"),
  pullRequest: RunPullRequestSchema.optional().describe('the pull request opened for its branch (`POST …/pr`): the latest one'),
  fromRunId: z
    .string()
    .nullable()
    .optional()
    .describe("a follow-on run: the run whose head commit this run's worktree branched from (docs/decisions.md, Follow-on runs)"),
  setup: RunSetupSchema.optional().describe("the worktree setup (`.svc/worktree.yaml`), when the run's new worktree had one"),
  definitionHash: z
    .string()
    .optional()
    .describe(
      'the version of the workflow the run executes: sha256 of its definition as parsed (docs/decisions.md, Versions); absent on runs recorded before versions',
    ),
  definitionHashes: z
    .array(z.string())
    .optional()
    .describe('every version the run ran under, oldest first: the one it started with, then each a resume picked up'),
  traceparent: z
    .string()
    .regex(TRACEPARENT_PATTERN)
    .optional()
    .describe(
      "the W3C trace context the run's spans continue (docs/decisions.md, Traces): the `traceparent` of the webhook delivery that started it, else its first run span's once it executed with tracing on; absent when never traced",
    ),
});

/** Extra variables given to nodes (webhook runs: TRIGGER_TYPE, TRIGGER_PAYLOAD, …). */
const RunVariablesSchema = z.record(z.string(), z.string());

/** A run's detail: with its trigger variables and its events. */
export const RunDetailSchema = RunViewSchema.extend({
  variables: RunVariablesSchema,
  graph: z
    .array(
      z.object({
        id: z.string(),
        dependsOn: z.array(z.string()),
        kind: z.string(),
        conditional: z.boolean(),
        permissions: z.enum(PERMISSIONS).optional().describe('agent nodes: what the agent may do'),
      }),
    )
    .describe("the DAG of the run's definition snapshot: each node, what it does and what it waits for"),
  events: z.array(z.looseObject({ type: z.string(), at: z.string(), runId: z.string(), seq: z.number().int(), pos: z.number() })),
  serverId: z
    .string()
    .optional()
    .describe('with a shared database: the server that claimed the run (executes or executed it; its `/api/health` shows its id); absent while none holds it'),
  worktreeHome: z
    .object({
      id: z.string().describe('the SVC_HOME identity (its `home-id` file)'),
      host: z.string().nullable(),
      path: z.string().nullable().describe('the SVC_HOME directory on that host'),
      liveServers: z.number().int().describe('servers of that home whose lease holds'),
    })
    .optional()
    .describe("with a shared database: the home holding the run's worktree, when it has one; only its servers continue the run"),
  waitingFor: z.string().optional().describe('why a pending run is not claimed: the home holding its worktree has no server running'),
  definitionChanged: z
    .boolean()
    .optional()
    .describe(
      "true when the workflow's definition differs now from the one the run executes (an approval continues with the run's own; a resume takes the current one); absent when the workflow is gone or the run has no version",
    ),
});

/** The stored run. */
export const RunRecordSchema = RunViewSchema.extend({
  variables: RunVariablesSchema,
  /** The definition as written when the run started (or resumed): a later edit never changes a running run. */
  definition: z.unknown(),
});

/** A spend cap in USD (docs/decisions.md, "Spend cap"). */
export const MaxCostUsdSchema = z.number().positive().finite();

/** The message reaches bash nodes as an environment variable, and Linux refuses any single one over 128 KiB. */
export const MAX_MESSAGE_BYTES = 96 * 1024;

/** `POST /api/workflows/{name}/run`: what starting a run takes (the client's `runs.start` input is this). */
export const StartRunBodySchema = z.strictObject({
  message: z
    .string()
    .refine(
      (text) => Buffer.byteLength(text) <= MAX_MESSAGE_BYTES,
      `message is limited to ${MAX_MESSAGE_BYTES / 1024} KiB (bash nodes get it as an environment variable)`,
    )
    .describe('the task; $ARGUMENTS / $USER_MESSAGE in the workflow; at most 96 KiB'),
  conversationId: z
    .string()
    .min(1)
    .max(200)
    .nullish()
    .describe('links the run to a conversation; a resumable failed run of this workflow with this id is continued'),
  cwd: z.string().optional().describe("absolute working directory (default: the server's); project workflows are found under it"),
  workspaceId: z
    .string()
    .min(1)
    .max(200)
    .nullish()
    .describe(
      "run in this workspace (its id, its name or a unique id prefix), in a git worktree of its own (svc/<runId>), with this workspace's definition of the workflow first",
    ),
  inPlace: z
    .boolean()
    .optional()
    .describe(
      "run in cwd itself, no worktree and no branch, even when a registered workspace's checkout holds it (by default such a run goes to a worktree of that workspace); excludes workspaceId",
    ),
  trigger: z.enum(['api', 'cli']).optional().describe('who started the run (the CLI says cli)'),
  fromRunId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "a follow-on run: its worktree branches from this run's head commit (an id or an unambiguous prefix); that run must have a worktree, on the same workspace (the default workspace)",
    ),
  maxCostUsd: MaxCostUsdSchema.optional().describe("the run's spend cap in USD; with the workflow's `max_cost_usd` too, the smaller wins"),
  permissions: z
    .enum(PERMISSIONS)
    .optional()
    .describe("what the run's agents may do at most (read, edit, full): lowers the workflow's, never raises it (422 permissions_above_workflow)"),
});

/** `POST /api/workflows/runs/{runId}/signal` (docs/decisions.md, "Waits and signals"). */
export const SignalBodySchema = z.strictObject({
  event: EventNameSchema.describe('the event a wait node of the run waits for (`wait: { event: … }`)'),
  payload: z.unknown().optional().describe("becomes the waiting node's output (`$<id>.output`): a string as it is, any other JSON value as JSON; none: ''"),
});

/** `POST /api/workflows/runs/{runId}/resume`: a new spend cap replaces the run's (it may exceed the workflow's). */
export const ResumeRunBodySchema = z.strictObject({
  maxCostUsd: MaxCostUsdSchema.optional().describe("replaces the run's spend cap; a run stopped by its cap resumes only with one above what it spent"),
});
