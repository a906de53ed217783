import { claudeToolTracker } from './claude-tools.js';
import { claudePermissionArgs, CLAUDE_ROOT_REFUSAL, fullRefusal } from './permissions.js';
import { runJsonlProcess } from './run-jsonl-process.js';
import { CLAUDE_SANDBOX_UNAVAILABLE, claudeSandboxSettings } from './sandbox.js';
import { sandboxDenials, sandboxUnavailable } from '../sandbox/index.js';
import { detectUsageLimit, isUsageLimitNotice, readRateLimitEvent } from './usage-limit.js';
import { AgentError, type Agent, type AgentRequest, type AgentResult } from './types.js';

type Json = Record<string, unknown>;
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** A configured endpoint reaches Claude Code as ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (docs/contract.md, "Model endpoints"). */
function withEndpoint(env: NodeJS.ProcessEnv, endpoint: AgentRequest['endpoint']): NodeJS.ProcessEnv {
  if (!endpoint) return env;
  // The server's own Anthropic credentials must never travel to a configured endpoint: the key
  // is the one `apiKeyEnv` names, or none.
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...rest } = env;
  const next: NodeJS.ProcessEnv = { ...rest, ANTHROPIC_BASE_URL: endpoint.baseUrl };
  const key = endpoint.apiKeyEnv ? env[endpoint.apiKeyEnv] : undefined;
  if (key) next.ANTHROPIC_API_KEY = key;
  return next;
}

/**
 * The sandbox's refusals in each tool result (its text, and `tool_use_result.stderr`, where Claude
 * Code puts its `<sandbox_violations>`), named by the tool that was called.
 */
function claudeDenialReader(request: AgentRequest): (line: Json) => void {
  const names = new Map<string, string>();
  const parts = (line: Json) => {
    const content = (line.message as Json | undefined)?.content;
    return Array.isArray(content) ? (content as Json[]) : [];
  };
  const text = (content: unknown): string =>
    typeof content === 'string' ? content : Array.isArray(content) ? (content as Json[]).map((part) => String(part.text ?? '')).join('\n') : '';
  return (line) => {
    for (const part of parts(line)) {
      if (part.type === 'tool_use' && typeof part.id === 'string') names.set(part.id, String(part.name ?? 'tool'));
      // A call asking to run outside the sandbox: refused by `allowUnsandboxedCommands: false`, and said.
      const input = part.type === 'tool_use' ? (part.input as Json | undefined) : undefined;
      if (input?.dangerouslyDisableSandbox === true)
        request.onSandboxDenied?.({ kind: 'escape', target: String(input.command ?? '').slice(0, 200), tool: String(part.name ?? 'tool') });
      if (part.type !== 'tool_result' || line.type !== 'user') continue;
      const stderr = (line.tool_use_result as Json | undefined)?.stderr;
      const said = `${text(part.content)}\n${typeof stderr === 'string' ? stderr : ''}`;
      const tool = names.get(String(part.tool_use_id)) ?? 'tool';
      for (const denial of sandboxDenials(said, tool, request.sandbox!, request.cwd, request.env.HOME)) request.onSandboxDenied?.(denial);
    }
  };
}

const usageLimitError = (message: string, resumeAt: Date | null, costUsd: number | null) =>
  new AgentError('usage_limit', message, costUsd, resumeAt?.toISOString() ?? null);

/**
 * Claude Code in headless mode: `claude -p --output-format stream-json --verbose [--model M]
 * [--resume S] [--max-budget-usd B]` plus the flags of the request's permissions, prompt on stdin (docs/contract.md, "Agent command lines"). `--verbose` is required by stream-json output.
 */
export function createClaudeAgent(bin: string): Agent {
  return {
    name: 'claude',
    async run(request: AgentRequest): Promise<AgentResult> {
      // Said at once and with what to do, rather than after a spawn that prints one line on stderr.
      const refusal = request.permissions === 'full' ? fullRefusal(process.getuid?.(), request.env) : undefined;
      if (refusal) throw new AgentError('agent_refused', refusal);
      const args = ['-p', '--output-format', 'stream-json', '--verbose', ...claudePermissionArgs(request.permissions)];
      if (request.sandbox) {
        // Checked here rather than left to Claude Code, which would say it only after starting.
        const missing = await sandboxUnavailable({ agent: 'claude', path: request.env.PATH });
        if (missing) throw new AgentError('sandbox_unavailable', `sandbox_unavailable: ${missing}`);
        args.push('--settings', JSON.stringify(claudeSandboxSettings(request.permissions, request.sandbox)));
      }
      if (request.model) args.push('--model', request.model);
      if (request.resumeSession) args.push('--resume', request.resumeSession);
      // Rounded down to a cent's hundredth: the flag never grants more than is left of the run's cap.
      if (request.maxBudgetUsd !== undefined) args.push('--max-budget-usd', (Math.floor(request.maxBudgetUsd * 10_000) / 10_000).toFixed(4));
      let sessionId: string | null = null;
      let model: string | null = request.model;
      let streamed = '';
      let result: Json | undefined;
      // The last `rate_limit_event` that refused the account (an `allowed` one after it lifts it):
      // when the call then fails, it is the limit, and its `resetsAt` the reset, whatever the text says.
      let refused = null as { resetsAt: Date | null } | null;
      const trackTools = claudeToolTracker(request.cwd, (call) => request.onTool?.(call));
      const readDenials = request.sandbox ? claudeDenialReader(request) : () => {};
      const outcome = await runJsonlProcess({
        agent: 'claude',
        bin,
        args,
        request: { ...request, env: withEndpoint(request.env, request.endpoint) },
        onLine(line) {
          if (typeof line.session_id === 'string') sessionId = line.session_id;
          // `claude-opus-4-8[1m]` on the init line names the context window too; the model is the part before.
          if (line.type === 'system' && typeof line.model === 'string') model = line.model.replace(/\[[^\]]*\]$/, '');
          // An API error comes as a made-up assistant line ("API Error: 400 …", model `<synthetic>`):
          // it is the error, not a reply to stream.
          const synthetic = line.error !== undefined || (line.message as Json | undefined)?.model === '<synthetic>';
          if (line.type === 'assistant' && !synthetic) {
            const content = (line.message as Json | undefined)?.content;
            for (const part of Array.isArray(content) ? (content as Json[]) : []) {
              if (part.type === 'text' && typeof part.text === 'string') {
                streamed += part.text;
                request.onText(part.text);
              }
            }
          }
          trackTools(line);
          readDenials(line);
          const rateLimit = readRateLimitEvent(line);
          if (rateLimit) refused = rateLimit.rejected ? { resetsAt: rateLimit.resetsAt } : null;
          if (line.type === 'result') result = line;
        },
      });
      if (!result) {
        const why = outcome.stderrTail || `exit code ${outcome.code ?? outcome.signal}`;
        if (CLAUDE_ROOT_REFUSAL.test(outcome.stderrTail)) throw new AgentError('agent_refused', `claude refused to start: ${why}`);
        throw new AgentError('agent_failed', `claude ended without a result: ${why}`);
      }
      if (result.is_error === true || outcome.code !== 0) {
        const errors = Array.isArray(result.errors) ? (result.errors as unknown[]).map(String).filter(Boolean) : [];
        const text =
          typeof result.result === 'string' && result.result
            ? result.result
            : errors.length
              ? errors.join('; ')
              : outcome.stderrTail || String(result.subtype ?? 'error');
        const why = typeof result.api_error_status === 'number' ? `API status ${result.api_error_status}` : String(result.subtype ?? `exit ${outcome.code}`);
        // Claude Code keeps sessions per working directory: one made elsewhere (the server moved) is not found.
        const unavailable = errors.map((e) => CLAUDE_SANDBOX_UNAVAILABLE.exec(e)).find(Boolean);
        if (unavailable) throw new AgentError('sandbox_unavailable', `sandbox_unavailable: ${unavailable[1] || text}`);
        const lost = request.resumeSession !== undefined && errors.some((e) => /no conversation found with session id/i.test(e));
        // Structured first: the event's time is exact (unix seconds); the text's wording and clock
        // time (`resets 3pm`, in a zone not read) are what is left when no event said it.
        const worded = detectUsageLimit(text) ?? (result.api_error_status === 429 ? { resumeAt: null } : null);
        const limit = refused ? { resumeAt: refused.resetsAt ?? worded?.resumeAt ?? null } : worded;
        if (limit) throw usageLimitError(`claude stopped at its usage limit (${why}): ${text}`, limit.resumeAt, num(result.total_cost_usd));
        throw new AgentError(lost ? 'agent_session_lost' : 'agent_failed', `claude failed (${why}): ${text}`, num(result.total_cost_usd));
      }
      if (typeof result.result === 'string' && isUsageLimitNotice(result.result)) {
        throw usageLimitError(
          `claude stopped at its usage limit: ${result.result}`,
          refused?.resetsAt ?? detectUsageLimit(result.result)?.resumeAt ?? null,
          num(result.total_cost_usd),
        );
      }
      const usage = result.usage as Json | undefined;
      const input = num(usage?.input_tokens);
      const output = num(usage?.output_tokens);
      return {
        text: typeof result.result === 'string' ? result.result : streamed,
        costUsd: num(result.total_cost_usd),
        tokens: input === null && output === null ? null : { input: input ?? 0, output: output ?? 0 },
        sessionId,
        model,
      };
    },
  };
}
