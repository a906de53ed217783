import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { presetLaunch } from '../config/index.js';
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

/** Tokens as Gemini CLI reports them: the prompt response's `_meta.quota.token_count`; no agent reports USD. */
function tokensOf(response: acp.PromptResponse): AgentTokens | null {
  const count = ((response._meta?.quota as Json | undefined)?.token_count ?? null) as Json | null;
  const input = Number(count?.input_tokens);
  const output = Number(count?.output_tokens);
  return Number.isFinite(input) && Number.isFinite(output) ? { input, output } : null;
}

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
  let sessionId: string | null = null;
  let cancelling = false;
  const tools = acpToolTracker(request.cwd, (call) => request.onTool?.(call));
  const client = acp
    .client({ name: 'svc' })
    .onNotification(acp.methods.client.session.update, ({ params: { update } }) => {
      // `session/load` replays the session's history first: it was said in an earlier turn.
      if (replaying) return;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
        text += update.content.text;
        request.onText(update.content.text);
      } else if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') tools.update(update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const { response, allowed } = cancelling
        ? { response: { outcome: { outcome: 'cancelled' as const } }, allowed: false }
        : permissionAnswer(params.options, acpAllows(request.permissions, params.toolCall.kind));
      tools.permission(params.toolCall, allowed);
      return response;
    });
  const connection = client.connect(agentProcess.stream);
  const peer = connection.agent;
  const race = <T>(step: Promise<T>) => Promise.race([step, agentProcess.ended]);
  const onAbort = () => {
    cancelling = true;
    if (sessionId) void peer.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => {});
    const stop = () => agentProcess.stop(new AgentError('agent_cancelled', `${agent} call cancelled`));
    // Asked first, as ACP says; an agent that does not end its turn soon is stopped all the same.
    if (sessionId) setTimeout(stop, CANCEL_GRACE_MS).unref();
    else stop();
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const init = await race(
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
        await race(peer.request(acp.methods.agent.session.load, { sessionId: request.resumeSession, cwd: request.cwd, mcpServers: [] }));
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
      const created = await race(peer.request(acp.methods.agent.session.new, { cwd: request.cwd, mcpServers: [] })).catch((error: unknown) => {
        throw asAgentError(agent, 'to start a session', error, agentProcess.stderrTail());
      });
      sessionId = created.sessionId;
    }
    if (cancelling) onAbort();
    const response = await race(peer.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: prompt }] })).catch(
      (error: unknown) => {
        throw asAgentError(agent, 'in its turn', error, agentProcess.stderrTail());
      },
    );
    if (response.stopReason === 'cancelled')
      throw new AgentError(cancelling ? 'agent_cancelled' : 'agent_turn_cancelled', `${agent} ended its turn cancelled${cancelling ? '' : ', unasked'}`);
    if (response.stopReason !== 'end_turn') throw new AgentError(STOPPED[response.stopReason], `${agent} ended its turn: ${response.stopReason}`);
    return { text, costUsd: null, tokens: tokensOf(response), sessionId, model: request.model };
  } catch (error) {
    if (cancelling) throw new AgentError('agent_cancelled', `${agent} call cancelled`);
    throw asAgentError(agent, 'in its turn', error, agentProcess.stderrTail());
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    connection.close();
  }
}
