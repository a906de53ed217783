/**
 * The names svc's facts take in a trace (docs/decisions.md, "Traces"): the GenAI semantic
 * conventions' where they have one (`gen_ai.*`, `error.type`), `svc.*` for the rest. Loaded only
 * with tracing on, like the rest of the SDK side of this room.
 */
import type { Attributes } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import type { NodeSpanEnd, NodeSpanEvent, RunSpanEnd, RunSpanEvent, ToolCallFacts, TracedRun } from './types.js';

/** svc's own attributes. */
export const SVC = {
  runId: 'svc.run.id',
  nodeId: 'svc.node.id',
  nodeKind: 'svc.node.kind',
  trigger: 'svc.trigger',
  status: 'svc.status',
  costUsd: 'svc.cost_usd',
  peakRssBytes: 'svc.peak_rss_bytes',
  cpuSeconds: 'svc.cpu_seconds',
  attempts: 'svc.attempts',
  assistant: 'svc.assistant',
  toolStatus: 'svc.tool.status',
  waitingFor: 'svc.waiting_for',
  attempt: 'svc.attempt',
  decision: 'svc.approval.decision',
  waitedMs: 'svc.approval.waited_ms',
  waitUntil: 'svc.wait.until',
  waitEvent: 'svc.wait.event',
  /** The span ended because svc stopped, not because its run did: a later process continues the run in the same trace. */
  processStopped: 'svc.process_stopped',
} as const;

/** Who serves each assistant's model, in the conventions' words (`gen_ai.provider.name`, and the older `gen_ai.system`). */
const PROVIDERS: Record<string, string> = { claude: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC, codex: GEN_AI_PROVIDER_NAME_VALUE_OPENAI };

/** Attributes without the facts nobody reported (an attribute is never set to a made-up value). */
function defined(attributes: Record<string, string | number | boolean | null | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined && value !== null)) as Attributes;
}

export function runSpanName(run: TracedRun): string {
  return `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW} ${run.workflow}`;
}

export function runStartAttributes(run: TracedRun): Attributes {
  return defined({
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
    [ATTR_GEN_AI_WORKFLOW_NAME]: run.workflow,
    [SVC.runId]: run.id,
    [SVC.trigger]: run.trigger,
  });
}

export function runEndAttributes(end: RunSpanEnd): Attributes {
  return defined({
    [SVC.status]: end.status,
    [ATTR_ERROR_TYPE]: end.errorCode,
    [SVC.costUsd]: end.costUsd,
    [SVC.peakRssBytes]: end.peakRssBytes,
  });
}

export function runEventAttributes(event: RunSpanEvent): Attributes {
  if (event.name === 'approval') return defined({ [SVC.nodeId]: event.nodeId, [SVC.decision]: event.decision, [SVC.waitedMs]: event.waitedMs });
  return defined({ [SVC.nodeId]: event.nodeId, [SVC.waitUntil]: event.until, [SVC.waitEvent]: event.event });
}

const isAgent = (kind: string) => kind !== 'bash';

/** `invoke_agent <node>` for an agent's node (the node is the agent, as the workflow names it), `bash <node>` for a script's. */
export function nodeSpanName(nodeId: string, kind: string): string {
  return isAgent(kind) ? `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${nodeId}` : `bash ${nodeId}`;
}

export function nodeStartAttributes(runId: string, nodeId: string, kind: string): Attributes {
  return defined({
    ...(isAgent(kind) ? { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, [ATTR_GEN_AI_AGENT_NAME]: nodeId } : {}),
    [SVC.runId]: runId,
    [SVC.nodeId]: nodeId,
    [SVC.nodeKind]: kind,
  });
}

export function nodeEndAttributes(end: NodeSpanEnd): Attributes {
  const agent = end.agent;
  const provider = agent ? PROVIDERS[agent.assistant] : undefined;
  return defined({
    [SVC.status]: end.status,
    [ATTR_ERROR_TYPE]: end.errorCode,
    [SVC.attempts]: end.attempts,
    [SVC.costUsd]: end.costUsd,
    [SVC.peakRssBytes]: end.peakRssBytes,
    [SVC.cpuSeconds]: end.cpuSeconds,
    ...(agent
      ? {
          [SVC.assistant]: agent.assistant,
          [ATTR_GEN_AI_PROVIDER_NAME]: provider,
          [ATTR_GEN_AI_SYSTEM]: provider,
          [ATTR_GEN_AI_REQUEST_MODEL]: agent.requestModel,
          [ATTR_GEN_AI_RESPONSE_MODEL]: agent.responseModel,
          [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: agent.tokens?.input,
          [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: agent.tokens?.output,
          [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: agent.tokens?.cachedInput,
        }
      : {}),
  });
}

export function nodeEventAttributes(event: NodeSpanEvent): Attributes {
  if (event.name === 'retry') return defined({ [SVC.attempt]: event.attempt, [ATTR_ERROR_TYPE]: event.errorCode });
  return defined({ [SVC.waitingFor]: event.waitingFor });
}

export function toolSpanName(call: ToolCallFacts): string {
  return `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${call.tool}`;
}

/** The tool's name and how the call ended; what it was asked and what it answered never leave svc. */
export function toolAttributes(runId: string, nodeId: string, call: ToolCallFacts): Attributes {
  return defined({
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: call.tool,
    [SVC.toolStatus]: call.status,
    ...(call.status === 'ok' ? {} : { [ATTR_ERROR_TYPE]: call.status }),
    [SVC.runId]: runId,
    [SVC.nodeId]: nodeId,
  });
}
