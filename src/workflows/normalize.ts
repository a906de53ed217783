/**
 * Raw (validated) workflow → normalized `WorkflowDefinition`: defaults applied, durations in
 * milliseconds, `when` parsed, the one action as a discriminated union.
 *
 * Trusts its input: call it only on a raw workflow that passed `validateWorkflowSource`. What
 * validation rules out (a `when` that does not parse, a bad duration, no action) throws here as a
 * programming error.
 */

import { parseDuration } from '../shared/duration.js';
import { parseSize } from '../shared/size.js';
import { DEFAULT_DEDUPE_WINDOW_SEC, DEFAULT_NODE_PERMISSIONS, DEFAULT_TIMEOUT_MS, DEFAULT_TRIGGER_RULE } from './schema.js';
import type {
  NodeAction,
  RawNode,
  RawScheduleTrigger,
  RawWebhookTrigger,
  RawWorkflow,
  ScheduleTrigger,
  WebhookTrigger,
  WorkflowDefinition,
  WorkflowNode,
} from './schema.js';
import { parseWhen } from './when.js';
import { mergeSandbox } from './sandbox.js';

function durationMs(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = parseDuration(value);
  if (ms === null) throw new Error(`toWorkflow: unvalidated duration ${String(value)}`);
  return ms;
}

function optionalMs(value: number | string | undefined): number | undefined {
  return value === undefined ? undefined : durationMs(value, 0);
}

function actionOf(node: RawNode): NodeAction {
  if (node.prompt !== undefined) return { kind: 'prompt', prompt: node.prompt };
  if (node.bash !== undefined) return { kind: 'bash', bash: node.bash };
  if (node.approval !== undefined) return { kind: 'approval', message: node.approval.message };
  if (node.command !== undefined) return { kind: 'command', command: node.command };
  if (node.wait !== undefined) {
    const { for: duration, event, timeout } = node.wait;
    if (duration !== undefined) return { kind: 'wait', forMs: durationMs(duration, 0) };
    return { kind: 'wait', event, ...(timeout !== undefined ? { timeoutMs: durationMs(timeout, 0) } : {}) };
  }
  throw new Error(`toWorkflow: node '${node.id}' has no action`);
}

/** A node's sandbox: the widening (the workflow's and the node's lists), and whether a bash node asks for one or declines it. */
function sandboxOf(kind: NodeAction['kind'], workflow: RawWorkflow, node: RawNode): Pick<WorkflowNode, 'sandbox' | 'bashSandbox'> {
  if (kind !== 'bash' && kind !== 'prompt' && kind !== 'command') return {};
  const own = typeof node.sandbox === 'object' ? node.sandbox : undefined;
  const widening = workflow.sandbox || own ? { sandbox: mergeSandbox(workflow.sandbox, own) } : {};
  if (kind !== 'bash') return widening;
  return { ...widening, ...(node.sandbox === undefined ? {} : { bashSandbox: node.sandbox !== false }) };
}

/** A process node's memory limit; none on approvals and waits, which run no process. Absent unless set, like `continueOnError`. */
function maxMemoryOf(kind: NodeAction['kind'], size: string | undefined): Pick<WorkflowNode, 'maxMemoryBytes'> {
  if (size === undefined || (kind !== 'bash' && kind !== 'prompt' && kind !== 'command')) return {};
  const bytes = parseSize(size);
  if (bytes === null) throw new Error(`toWorkflow: unvalidated size ${size}`);
  return { maxMemoryBytes: bytes };
}

/** A process node's `memory:` request, in bytes; absent unless set. */
function memoryRequestOf(kind: NodeAction['kind'], size: string | undefined): Pick<WorkflowNode, 'memoryBytes'> {
  const bytes = maxMemoryOf(kind, size).maxMemoryBytes;
  return bytes === undefined ? {} : { memoryBytes: bytes };
}

function toNode(node: RawNode, workflow: RawWorkflow): WorkflowNode {
  let when: WorkflowNode['when'];
  if (node.when !== undefined) {
    const parsed = parseWhen(node.when);
    if (!parsed.ok) throw new Error(`toWorkflow: node '${node.id}' has an unvalidated when: ${parsed.error}`);
    when = parsed.ast;
  }
  const action = actionOf(node);
  const runsAgent = action.kind === 'prompt' || action.kind === 'command';
  return {
    id: node.id,
    action,
    dependsOn: [...new Set(node.depends_on ?? [])],
    when,
    whenSource: node.when,
    triggerRule: node.trigger_rule ?? DEFAULT_TRIGGER_RULE,
    timeoutMs: durationMs(node.timeout, DEFAULT_TIMEOUT_MS),
    // The workflow's is a default for agents only: a bash node is watched only when it asks to be.
    idleTimeoutMs: optionalMs(node.idle_timeout ?? (runsAgent ? workflow.idle_timeout : undefined)),
    retry: {
      maxAttempts: node.retry?.max_attempts ?? 1,
      delayMs: durationMs(node.retry?.delay, 0),
    },
    assistant: node.assistant ?? workflow.assistant,
    model: node.model ?? workflow.model,
    permissions: runsAgent ? (node.permissions ?? workflow.permissions ?? DEFAULT_NODE_PERMISSIONS) : undefined,
    ...sandboxOf(action.kind, workflow, node),
    envAllow: [...new Set([...(workflow.env?.allow ?? []), ...(node.env?.allow ?? [])])],
    envInherit: action.kind === 'bash' ? node.env?.inherit !== false : false,
    // Absent unless asked for, so the snapshots (and versions) of workflows that never say it stay as they were.
    ...(node.continue_on_error ? { continueOnError: true } : {}),
    ...maxMemoryOf(action.kind, node.max_memory ?? workflow.max_memory),
    ...memoryRequestOf(action.kind, node.memory),
  };
}

function toWebhookTrigger(trigger: RawWebhookTrigger): WebhookTrigger {
  return {
    event: trigger.event,
    slug: trigger.slug,
    secretEnv: trigger.secret_env,
    idempotencyKey: trigger.idempotency_key,
    dedupeWindowSec: trigger.dedupe_window_sec ?? DEFAULT_DEDUPE_WINDOW_SEC,
    filter: { ...trigger.filter },
    ...(trigger.signal !== undefined && trigger.run_field !== undefined ? { signal: { event: trigger.signal, runField: trigger.run_field } } : {}),
  };
}

function toScheduleTrigger(trigger: RawScheduleTrigger): ScheduleTrigger {
  return { cron: trigger.cron, timezone: trigger.timezone, message: trigger.message, overlap: trigger.overlap ?? 'skip' };
}

/** The normalized form of a validated raw workflow. */
export function toWorkflow(raw: RawWorkflow): WorkflowDefinition {
  return {
    name: raw.name,
    description: raw.description,
    assistant: raw.assistant,
    model: raw.model,
    commit: raw.commit ?? true,
    permissions: raw.permissions,
    idleTimeoutMs: optionalMs(raw.idle_timeout),
    maxCostUsd: raw.max_cost_usd,
    autoResume: raw.auto_resume,
    nodes: raw.nodes.map((node) => toNode(node, raw)),
    triggers: {
      webhook: (raw.triggers?.webhook ?? []).map(toWebhookTrigger),
      ...(raw.triggers?.schedule?.length ? { schedule: raw.triggers.schedule.map(toScheduleTrigger) } : {}),
    },
  };
}
