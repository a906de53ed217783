import { AgentError, agentEnvironment, agentFor, emptyToolTally, tallyToolCall, type AgentToolCall, type ToolTally } from '../agents/index.js';
import { DEFAULT_NODE_ESTIMATE_BYTES, PendingGrant, watchTreeMemory } from '../processes/index.js';
import { setUpSandbox } from '../sandbox/index.js';
import { formatSize } from '../shared/size.js';
import { callCost } from '../config/index.js';
import type { ConversationDeps } from './ports.js';
import type { ConversationRecord, StoredMessage } from './records.js';

export interface AgentReply {
  text: string;
  costUsd: number | null;
  model: string | null;
  tokens: { input: number; output: number } | null;
  session: ConversationRecord['agent_session'];
  /** The agent's tool calls, as a node counts them. */
  tools: ToolTally;
  /** A sandboxed reply: how many refusals of its sandbox were seen, each a `sandbox_denied` line in the server's log; and why its sandbox was weaker, if it was. */
  sandbox: { sandboxDenied: number; sandboxWarning?: string } | null;
}

/**
 * One plain message answered by the conversation's assistant (the configured default, with its
 * model and endpoint; with the conversation's permissions, else the assistant's), in the conversation's workspace (its source checkout, behind the env-leak
 * gate, with its env values) or else the server's working directory. The agent's own session
 * carries the conversation on: the one stored with the conversation is resumed when it belongs to
 * the same assistant. Text streams as `assistant_delta` events while it arrives.
 */
export async function replyWithAgent(
  deps: ConversationDeps,
  conversation: ConversationRecord,
  message: StoredMessage,
  signal: AbortSignal,
): Promise<AgentReply> {
  const assistant = conversation.assistant ?? (await deps.assistants.defaultAssistant());
  const launch = await deps.assistants.launchOf(assistant);
  const model = await deps.assistants.modelOf(assistant);
  const endpoint = await deps.assistants.endpointOf(assistant);
  const permissions = conversation.permissions ?? (await deps.assistants.permissionsOf(assistant));
  const workspaceId = conversation.workspace_id;
  let cwd = deps.cwd;
  let workspaceEnv: Record<string, string> = {};
  if (workspaceId) {
    await deps.workspaces.assertAgentAllowed(workspaceId);
    cwd = await deps.workspaces.cwdOf(workspaceId);
    workspaceEnv = await deps.workspaces.env(workspaceId);
  }
  // Least privilege (docs/contract.md, "Least-privilege environment"): the base set, the agent's own, what the server allows and the workspace's values.
  const { env } = await agentEnvironment({ launch, endpoint, server: deps.env, allow: deps.limits.agentEnvAllow ?? [], given: workspaceEnv });
  // Read before the sandbox is set up: nothing between here and the reply's end may fail without disposing of it.
  const limitBytes = (await deps.assistants.maxMemoryOf?.(assistant)) ?? undefined;
  // Its OS sandbox, as a node's at the same level: the conversation's directory, a TMPDIR of its own.
  const confined = await setUpSandbox({
    permissions,
    mode: deps.limits.sandbox?.mode ?? 'on',
    cwd,
    env,
    svcHome: deps.limits.sandbox?.svcHome,
    label: conversation.id,
  });
  const stored = conversation.agent_session?.assistant === assistant ? conversation.agent_session : undefined;
  // Deltas are emitted in the order they arrive (positions are taken synchronously) and all are
  // persisted before the reply is stored, so `assistant_done` always follows the last delta.
  const deltas: Promise<unknown>[] = [];
  // Tool calls go the same way, each as it resolves; a retried ask (lost session) counts both.
  const tools = emptyToolTally();
  let denied = 0;
  let warning: string | undefined;
  const onTool = (call: AgentToolCall) => {
    if (!tallyToolCall(tools, call)) return;
    deltas.push(deps.events.emit(conversation.id, 'agent_tool', { messageId: message.id, ...call }));
  };
  // Its place in the server's memory budget (taken once its agent holds a slot), and its limit.
  const grant = new PendingGrant(deps.memory, Math.min(DEFAULT_NODE_ESTIMATE_BYTES.agent, limitBytes ?? Infinity), signal);
  const memory = watchTreeMemory({ limitBytes, logger: deps.logger, intervalMs: deps.memory?.sampleMs, onSample: (bytes) => grant.measured(bytes) });
  const { agent, request } = agentFor(deps.agents, launch);
  const ask = (session: typeof stored) =>
    agent.run({
      ...request,
      prompt: message.content,
      cwd,
      model,
      permissions,
      sandbox: confined.sandbox,
      env: confined.env,
      endpoint,
      signal,
      firstEventTimeoutMs: deps.limits.agentFirstEventTimeoutMs,
      ...(session ? { resumeSession: session.id, sessionTokens: session.tokens ?? null, transcript: () => transcriptOf(deps, conversation, message) } : {}),
      onText: (text) => {
        deltas.push(deps.events.emit(conversation.id, 'assistant_delta', { messageId: message.id, text }));
      },
      onTool,
      onSandboxDenied: (denial) => {
        denied += 1;
        deps.logger.warn('conversation.sandbox_denied', { conversationId: conversation.id, messageId: message.id, ...denial });
      },
      onSandboxWarning: (text) => (warning = text),
      admitMemory: grant.admit,
      onProcess: memory.onProcess,
      logger: deps.logger,
    });
  let result: Awaited<ReturnType<typeof ask>> | undefined;
  let failure: unknown;
  try {
    result = await ask(stored);
  } catch (error) {
    // The agent no longer knows the session (Claude Code keeps them per directory, and the server
    // moved): the conversation starts a new one rather than failing every message from now on.
    if (stored && error instanceof AgentError && error.code === 'agent_session_lost') {
      deps.logger.warn('conversation.session_lost', { conversationId: conversation.id, assistant });
      result = await ask(undefined).catch((again: unknown) => void (failure = again));
    } else failure = error;
  }
  const { exceeded } = memory.end();
  grant.release();
  await confined.dispose();
  // Stopped past its limit: whatever its stopped agent made of it, or printed before, the reason is its memory.
  if (exceeded) throw memoryExceeded(exceeded.rssBytes, exceeded.limitBytes);
  if (!result) throw failure;
  await Promise.allSettled(deltas);
  return {
    text: result.text,
    // Priced from its tokens when the agent reports no cost (codex) and the assistant has a price, as a node's is.
    costUsd: await callCost(result, deps.assistants.priceOf && (() => deps.assistants.priceOf!(assistant))),
    model: result.model,
    tokens: result.tokens,
    session: result.sessionId ? { assistant, id: result.sessionId, tokens: result.sessionTokens ?? null } : (conversation.agent_session ?? null),
    tools,
    sandbox: confined.sandbox ? { sandboxDenied: denied, ...(warning ? { sandboxWarning: warning } : {}) } : null,
  };
}

function memoryExceeded(rssBytes: number, limitBytes: number): AgentError {
  return new AgentError(
    'memory_exceeded',
    `its agent's processes reached ${formatSize(rssBytes)}, over the assistant's maxMemory ${formatSize(limitBytes)}, and were stopped`,
  );
}

/** How much of the conversation a new session is given when its agent cannot continue the old one. */
const TRANSCRIPT_MAX_CHARS = 32_000;

/**
 * The conversation before `message`, as text for an agent that lost its session (an ACP agent whose
 * `session/load` failed): the newest messages that fit, oldest first, each with who said it.
 */
async function transcriptOf(deps: ConversationDeps, conversation: ConversationRecord, message: StoredMessage): Promise<string> {
  const messages = (await deps.repositories.messages.page(conversation.id, { before: message.id, limit: 200 }))?.messages ?? [];
  const lines: string[] = [];
  let size = 0;
  for (const earlier of [...messages].reverse()) {
    if (earlier.role === 'system') continue;
    const line = `${earlier.role === 'user' ? 'User' : 'Assistant'}: ${earlier.content}`;
    if (size + line.length > TRANSCRIPT_MAX_CHARS) break;
    lines.unshift(line);
    size += line.length;
  }
  return lines.join('\n\n');
}
