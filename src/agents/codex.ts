import { codexToolReader } from './codex-tools.js';
import { codexPermissionArgs } from './permissions.js';
import { runJsonlProcess } from './run-jsonl-process.js';
import { codexSandboxArgs } from './sandbox.js';
import { codexProfileWarning } from './codex-version.js';
import { sandboxDenials, sandboxUnavailable } from '../sandbox/index.js';
import { detectUsageLimit } from './usage-limit.js';
import { AgentError, type Agent, type AgentRequest, type AgentResult } from './types.js';

type Json = Record<string, unknown>;

/**
 * A configured endpoint becomes a model provider named `svc` on codex's command line (`-c` overrides
 * of its config.toml): an OpenAI-compatible server at `base_url`, its key read by codex from `env_key`.
 */
function providerArgs(endpoint: AgentRequest['endpoint']): string[] {
  if (!endpoint) return [];
  const set = (key: string, value: string) => ['-c', `${key}=${JSON.stringify(value)}`];
  return [
    ...set('model_providers.svc.name', 'svc'),
    ...set('model_providers.svc.base_url', endpoint.baseUrl),
    ...(endpoint.apiKeyEnv ? set('model_providers.svc.env_key', endpoint.apiKeyEnv) : []),
    ...set('model_provider', 'svc'),
  ];
}

/**
 * Codex's own words (on stderr, at start) when it could not put its helper aliases on PATH, which it
 * refuses to do under a CODEX_HOME inside the temporary directory. Its Linux sandbox may need the
 * `codex-linux-sandbox` alias (with a system bubblewrap older than 0.9, every sandboxed command
 * then fails "bwrap: execvp codex-linux-sandbox"), so svc says why in its log (docs/decisions.md,
 * "Codex's sandbox helper").
 */
const PATH_ALIASES_REFUSED = /could not create PATH aliases: ([^\n]*)/;

/**
 * OpenAI Codex CLI: `codex exec --json [--model M]` plus the sandbox flag of the request's
 * permissions, then `-`: prompt on stdin. It reports tokens but no cost, so cost stays null rather
 * than a misleading 0; the engine prices the tokens when the assistant has a configured price
 * (docs/decisions.md, "Spend cap").
 */
export function createCodexAgent(bin: string): Agent {
  return {
    name: 'codex',
    async run(request: AgentRequest): Promise<AgentResult> {
      // svc chooses the directory (a worktree, or the server's cwd for a conversation without a
      // workspace); codex would otherwise refuse to work outside a git repository it trusts.
      const args = ['exec', '--json', '--skip-git-repo-check'];
      if (request.model) args.push('--model', request.model);
      if (request.sandbox) {
        const missing = await sandboxUnavailable({ agent: 'codex', path: request.env.PATH });
        if (missing) throw new AgentError('sandbox_unavailable', `sandbox_unavailable: ${missing}`);
      }
      // A sandbox is a permission profile, given instead of `--sandbox` (sandbox.ts); a Codex too old
      // for one gets `--sandbox`, and the node says its reads were not confined (codex-version.ts).
      const weaker = request.sandbox ? await codexProfileWarning(bin, request.env) : undefined;
      if (weaker) request.onSandboxWarning?.(weaker);
      const permissionArgs = request.sandbox && !weaker ? codexSandboxArgs(request.permissions, request.sandbox) : codexPermissionArgs(request.permissions);
      args.push(...providerArgs(request.endpoint), ...permissionArgs);
      // A conversation continues its thread: `codex exec resume <thread_id>`, prompt on stdin as ever.
      if (request.resumeSession) args.push('resume', request.resumeSession);
      args.push('-');
      let text = '';
      let sessionId: string | null = null;
      let totals: AgentResult['tokens'] = null;
      let failure: string | undefined;
      let lastError: string | undefined;
      const readTool = codexToolReader(request.cwd);
      const outcome = await runJsonlProcess({
        agent: 'codex',
        bin,
        args,
        request,
        onLine(line) {
          if (line.type === 'thread.started' && typeof line.thread_id === 'string') sessionId = line.thread_id;
          const item = line.item as Json | undefined;
          if (line.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') {
            text = item.text;
            request.onText(item.text);
          }
          const call = readTool(line);
          if (call) request.onTool?.(call);
          // What the sandbox refused, in a command's output (sandbox/denials.ts).
          if (request.sandbox && line.type === 'item.completed' && item?.type === 'command_execution' && typeof item.aggregated_output === 'string')
            for (const denial of sandboxDenials(item.aggregated_output, 'exec', request.sandbox, request.cwd, request.env.HOME))
              request.onSandboxDenied?.(denial);
          if (line.type === 'turn.completed') {
            const usage = line.usage as Json | undefined;
            totals = {
              input: Number(usage?.input_tokens ?? 0),
              output: Number(usage?.output_tokens ?? 0),
              cachedInput: Number(usage?.cached_input_tokens ?? 0),
            };
          }
          const error = line.error as Json | undefined;
          const message = String(error?.message ?? line.message ?? 'codex reported an error');
          if (line.type === 'turn.failed') failure = message;
          // An `error` line is also how codex announces a retry ("Reconnecting... 1/5") that then
          // succeeds: only the exit code says whether it was fatal.
          if (line.type === 'error') lastError = message;
        },
      });
      const refused = PATH_ALIASES_REFUSED.exec(outcome.stderrTail);
      if (refused && process.platform === 'linux' && request.permissions !== 'full')
        request.logger.warn('agent.codex_helpers_unavailable', {
          reason: refused[1],
          advice: 'set CODEX_HOME (or HOME) to a directory outside the temporary directory, or install bubblewrap 0.9 or later',
        });
      if (failure || outcome.code !== 0) {
        const why = failure ?? lastError ?? (outcome.stderrTail || `exit code ${outcome.code ?? outcome.signal}`);
        const limit = detectUsageLimit(why);
        if (limit) throw new AgentError('usage_limit', `codex stopped at its usage limit: ${why}`, null, limit.resumeAt?.toISOString() ?? null);
        throw new AgentError('agent_failed', `codex failed: ${why}`);
      }
      // A resumed thread reports its running total: this turn used the difference.
      const counted = totals as AgentResult['tokens']; // set in onLine, which TypeScript cannot follow
      const before = request.resumeSession ? request.sessionTokens : null;
      const tokens =
        counted && before
          ? {
              input: Math.max(0, counted.input - before.input),
              output: Math.max(0, counted.output - before.output),
              cachedInput: Math.max(0, (counted.cachedInput ?? 0) - (before.cachedInput ?? 0)),
            }
          : counted;
      return { text, costUsd: null, tokens, sessionId, sessionTokens: counted, model: request.model };
    },
  };
}
