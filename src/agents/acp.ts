import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { presetLaunch } from '../config/index.js';
import { OUTPUT_LIMIT_BYTES } from '../shared/output-limit.js';
import { packageVersion } from '../shared/version.js';
import { acpAllows, permissionAnswer } from './acp-permissions.js';
import { notFound, startAcpProcess, type AcpProcess } from './acp-process.js';
import { confineAcp, type ConfinedAcp } from './acp-sandbox.js';
import { findExecutable } from '../sandbox/index.js';
import { acpToolTracker } from './acp-tools.js';
import { AGENT_LINE_LIMIT_BYTES } from './line-splitter.js';
import { detectUsageLimit } from './usage-limit.js';
import { AgentError, type Agent, type AgentRequest, type AgentResult, type AgentTokens } from './types.js';

type Json = Record<string, unknown>;

/** How long an agent asked to `session/cancel` may take to end its turn before its group is killed. */
const CANCEL_GRACE_MS = 2000;

/** The stop reasons that end a turn without its work done, each a failure code of its own. */
const STOPPED: Record<Exclude<acp.StopReason, 'end_turn' | 'cancelled'>, AgentError['code']> = {
  refusal: 'agent_refusal',
  max_tokens: 'agent_max_tokens',
  max_turn_requests: 'agent_max_turn_requests',
};

/**
 * Tokens as Gemini CLI reports them: the prompt response's `_meta.quota.token_count`; no agent
 * reports USD. A count below zero is none: an agent's number never lowers what a run has spent.
 */
function tokensOf(response: acp.PromptResponse): AgentTokens | null {
  const count = ((response._meta?.quota as Json | undefined)?.token_count ?? null) as Json | null;
  const input = Number(count?.input_tokens);
  const output = Number(count?.output_tokens);
  return Number.isFinite(input) && Number.isFinite(output) ? { input: Math.max(0, input), output: Math.max(0, output) } : null;
}

const tooLarge = (agent: string) =>
  new AgentError(
    'output_too_large',
    `${agent} answered more than ${OUTPUT_LIMIT_BYTES / 1024 / 1024} MiB, the most a node passes on as its output; it was stopped`,
  );

/** A failed request's words, with its data (where agents put the API's error). */
function errorText(error: unknown): string {
  if (error instanceof acp.RequestError) return `${error.message}${error.data === undefined ? '' : `: ${JSON.stringify(error.data)}`}`;
  return error instanceof Error ? error.message : String(error);
}

function asAgentError(agent: string, what: string, error: unknown, stderr = ''): AgentError {
  if (error instanceof AgentError) return error;
  if (error instanceof acp.MessageTooLargeError)
    return new AgentError(
      'output_too_large',
      `${agent} sent a message of more than ${AGENT_LINE_LIMIT_BYTES / 1024 / 1024} MiB, the most svc reads; it was stopped`,
    );
  const text = errorText(error);
  const limit = detectUsageLimit(text);
  if (limit) return new AgentError('usage_limit', `${agent} stopped at its usage limit: ${text}`, null, limit.resumeAt?.toISOString() ?? null);
  // A connection that closed under a request says nothing of why: the agent's stderr may.
  const said = error instanceof acp.RequestError || !stderr ? text : `${text}; ${stderr}`;
  return new AgentError('agent_failed', `${agent} failed ${what}: ${said}`);
}

const withTranscript = (transcript: string, prompt: string) =>
  `The conversation so far (its earlier session could not be continued):\n\n${transcript}\n\nThe new message:\n\n${prompt}`;

/**
 * Any agent speaking the Agent Client Protocol on stdio, driven with the maintained SDK
 * (docs/decisions.md, "ACP agents"): one process per turn in the call's directory, `initialize`
 * (advertising no client `fs` or terminal, so the agent uses its own tools — Gemini's writes break
 * otherwise), `session/new` or `session/load`, one `session/prompt`. svc answers each permission
 * request from the call's level; agent text streams as it comes; the stop reason decides the outcome.
 */
export function createAcpAgent(homesDir: string): Agent {
  return {
    name: 'acp',
    async run(request: AgentRequest): Promise<AgentResult> {
      const launch = request.acp;
      if (!launch) throw new AgentError('agent_failed', 'an acp call came without its command');
      if (request.signal.aborted) throw new AgentError('agent_cancelled', `${launch.name} call cancelled before it started`);
      const home = join(homesDir, launch.name);
      await mkdir(home, { recursive: true });
      const keyEnv = launch.apiKeyEnv;
      const baseUrl = request.endpoint?.baseUrl ?? null;
      const preset = presetLaunch(launch.preset, { model: request.model, baseUrl, key: keyEnv ? request.env[keyEnv] : undefined, keyEnv, home });
      const env = { ...request.env, ...preset.env, ...launch.env };
      const command = [...launch.command, ...preset.args];
      // At `read` and `edit` the whole agent runs in svc's OS sandbox (acp-sandbox.ts): its answers
      // to permission requests are not all of its confinement.
      let confined: ConfinedAcp | undefined;
      if (request.sandbox) {
        // Said as an unsandboxed start says it, rather than as a shell's "not found" from inside.
        if (!(await findExecutable(command[0]!, env.PATH))) throw notFound(launch.name, command[0]!);
        confined = await confineAcp(launch.name, command, { policy: request.sandbox, preset: launch.preset, baseUrl, home, env }, request);
      }
      const [bin, ...args] = confined ? [confined.bin, ...confined.args] : command;
      const agentProcess = startAcpProcess(launch.name, bin!, args, request, env);
      try {
        return await turn(launch.name, request, agentProcess);
      } finally {
        await agentProcess.dispose();
        confined?.finish();
      }
    },
  };
}

async function turn(agent: string, request: AgentRequest, agentProcess: AcpProcess): Promise<AgentResult> {
  let replaying = false;
  let text = '';
  let textBytes = 0;
  let sessionId: string | null = null;
  let cancelling = false;
  const tools = acpToolTracker(request.cwd, (call) => request.onTool?.(call));
  const client = acp
    .client({ name: 'svc' })
    .onNotification(acp.methods.client.session.update, ({ params: { update } }) => {
      // `session/load` replays the session's history first: it was said in an earlier turn.
      if (replaying) return;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
        // Streamed in pieces, an answer has no line to bound it: it is stopped once past what a node may pass on.
        textBytes += Buffer.byteLength(update.content.text);
        if (textBytes > OUTPUT_LIMIT_BYTES) return agentProcess.stop(tooLarge(agent));
        text += update.content.text;
        request.onText(update.content.text);
      } else if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') tools.update(update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const { toolCall } = params;
      // ACP lets an update leave out what did not change: the kind may be the call's earlier one.
      const kind = (toolCall.kind ?? tools.kindOf(toolCall.toolCallId)) as acp.ToolKind | undefined;
      const { response, allowed } = cancelling
        ? { response: { outcome: { outcome: 'cancelled' as const } }, allowed: false }
        : permissionAnswer(params.options, acpAllows(request.permissions, kind));
      tools.permission(toolCall, allowed, cancelling);
      return response;
    });
  const connection = client.connect(agentProcess.stream);
  const peer = connection.agent;
  const race = <T>(step: Promise<T>) => Promise.race([step, agentProcess.ended]);
  // An agent that printed something but never answers its handshake would hold the call forever.
  const handshake = <T>(what: string, step: Promise<T>) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AgentError('agent_first_event_timeout', `${agent} did not answer ${what} within ${request.firstEventTimeoutMs} ms`)),
        request.firstEventTimeoutMs,
      );
    });
    return race(Promise.race([step, late])).finally(() => clearTimeout(timer));
  };
  const onAbort = () => {
    cancelling = true;
    tools.cancel();
    if (sessionId) void peer.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => {});
    const stop = () => agentProcess.stop(new AgentError('agent_cancelled', `${agent} call cancelled`));
    // Asked first, as ACP says; an agent that does not end its turn soon is stopped all the same.
    if (sessionId) setTimeout(stop, CANCEL_GRACE_MS).unref();
    else stop();
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  // Aborted while the call was being set up (its directory, its sandbox): the listener came too late to hear it.
  if (request.signal.aborted) onAbort();
  try {
    const init = await handshake(
      'initialize',
      peer.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
        clientInfo: { name: 'svc', version: packageVersion() },
      }),
    ).catch((error: unknown) => {
      throw asAgentError(agent, 'to initialize', error, agentProcess.stderrTail());
    });
    let prompt = request.prompt;
    if (request.resumeSession && init.agentCapabilities?.loadSession) {
      replaying = true;
      try {
        await handshake('session/load', peer.request(acp.methods.agent.session.load, { sessionId: request.resumeSession, cwd: request.cwd, mcpServers: [] }));
        sessionId = request.resumeSession;
      } catch (error) {
        if (error instanceof AgentError) throw error;
        // Gemini CLI cannot load a session in the clock minute it was made ("No previous sessions
        // found"): a new session is given the conversation so far instead.
        request.logger.warn('agent.acp_session_not_loaded', { agent, sessionId: request.resumeSession, reason: errorText(error).slice(0, 300) });
      } finally {
        replaying = false;
      }
    }
    if (request.resumeSession && !sessionId) {
      const transcript = await request.transcript?.();
      if (transcript) prompt = withTranscript(transcript, prompt);
    }
    if (!sessionId) {
      const created = await handshake('session/new', peer.request(acp.methods.agent.session.new, { cwd: request.cwd, mcpServers: [] })).catch(
        (error: unknown) => {
          throw asAgentError(agent, 'to start a session', error, agentProcess.stderrTail());
        },
      );
      sessionId = created.sessionId;
    }
    if (cancelling) onAbort();
    const response = await race(peer.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: prompt }] })).catch(
      (error: unknown) => {
        throw asAgentError(agent, 'in its turn', error, agentProcess.stderrTail());
      },
    );
    // Whatever ended the turn, what it used was used: a failed turn's tokens count against the spend cap too.
    const tokens = tokensOf(response);
    const reason = String(response.stopReason);
    if (reason === 'end_turn') return { text, costUsd: null, tokens, sessionId, model: request.model };
    if (reason === 'cancelled') {
      const code = cancelling ? 'agent_cancelled' : 'agent_turn_cancelled';
      throw new AgentError(code, `${agent} ended its turn cancelled${cancelling ? '' : ', unasked'}`, null, null, tokens);
    }
    // An agent's stop reason is its own word: one ACP does not name is a protocol error, not a lookup of anything.
    const code = Object.hasOwn(STOPPED, reason) ? STOPPED[reason as keyof typeof STOPPED] : 'agent_protocol_error';
    throw new AgentError(code, `${agent} ended its turn: ${reason.slice(0, 100) || 'no stop reason'}`, null, null, tokens);
  } catch (error) {
    if (cancelling) {
      tools.endCancelled();
      throw new AgentError('agent_cancelled', `${agent} call cancelled`, null, null, error instanceof AgentError ? error.tokens : null);
    }
    throw asAgentError(agent, 'in its turn', error, agentProcess.stderrTail());
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    connection.close();
  }
}
