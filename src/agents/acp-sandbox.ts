import { presetApiHosts, presetStateDirs, type AcpPreset } from '../config/index.js';
import { commandSandboxTools, realPathOf, sandboxCommand, sandboxDenials, type SandboxedCommand, type SandboxPolicy } from '../sandbox/index.js';
import { shellQuote } from '../workflows/index.js';
import { AgentError, type AgentRequest } from './types.js';

/**
 * An ACP agent in svc's OS sandbox (docs/decisions.md, "ACP agents": in svc's OS sandbox). ACP has no words
 * for a sandbox, so the whole agent runs inside the one bash nodes run in (sandbox/command-sandbox.ts:
 * Anthropic's sandbox runtime, bubblewrap, a proxy that lets through only the hosts allowed), under
 * the policy Claude Code's and Codex's commands get at the same level — the worktree writable only
 * at `edit`, the user's secrets and svc's home unreadable, no host but the workflow's — widened by
 * what the agent itself needs: its own state directories, and its model API's host. Its model
 * traffic is then confined too, as theirs is not: that host is the only one added.
 */

/** `host:port` of an endpoint, as the sandbox's allowlist takes it (a port given, else the scheme's). */
export function endpointHost(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

export interface AcpSandboxInput {
  policy: SandboxPolicy;
  preset: AcpPreset | null;
  /** The assistant's configured endpoint: its host is what the agent reaches; without one, its preset's vendor hosts. */
  baseUrl: string | null;
  /** The agent's own directory under svc's home (`agents/<name>`). */
  home: string;
  /** The agent's environment as it starts (its preset's variables set). */
  env: NodeJS.ProcessEnv;
}

/** The node's policy widened for the agent itself: its state writable and readable, its model API reachable. */
export function acpSandboxPolicy({ policy, preset, baseUrl, home, env }: AcpSandboxInput): SandboxPolicy {
  const state = [home, ...presetStateDirs(preset, env)].map(realPathOf);
  const hosts = baseUrl ? [endpointHost(baseUrl)] : presetApiHosts(preset, env);
  return {
    write: [...new Set([...policy.write, ...state])],
    denyRead: policy.denyRead,
    allowRead: [...new Set([...policy.allowRead, ...state])],
    network: [...new Set([...policy.network, ...hosts])],
  };
}

export interface ConfinedAcp {
  /** What to spawn: `bash -c` the sandbox's command line. */
  bin: string;
  args: string[];
  /** Once the agent has exited: the runtime's refusals (its network's) are told, its registration ends. */
  finish(): void;
}

/**
 * `command` (the executable and its arguments) wrapped in the agent's sandbox; `sandbox_unavailable`
 * naming what is missing when it cannot start, as for every sandboxed node.
 */
export async function confineAcp(agent: string, command: string[], input: AcpSandboxInput, request: AgentRequest): Promise<ConfinedAcp> {
  const tools = await commandSandboxTools(input.env.PATH);
  if (typeof tools === 'string') throw new AgentError('sandbox_unavailable', `sandbox_unavailable: ${tools}`);
  const policy = acpSandboxPolicy(input);
  // Inside, nothing is reachable but through the runtime's proxy: its NO_PROXY (loopback and
  // private ranges) would send a request for a local endpoint past the proxy, where nothing listens.
  const script = `unset NO_PROXY no_proxy\nexec ${command.map(shellQuote).join(' ')}`;
  // The call's own TMPDIR (sandbox/setup.ts), writable inside; a sandboxed call always has one.
  const tmpDir = input.env.TMPDIR;
  if (!tmpDir) throw new AgentError('sandbox_unavailable', 'sandbox_unavailable: the call has no temporary directory of its own');
  let wrapped: SandboxedCommand;
  try {
    wrapped = await sandboxCommand(script, policy, tmpDir, tools, request.signal);
  } catch (error) {
    throw new AgentError('sandbox_unavailable', `sandbox_unavailable: the sandbox could not be set up: ${(error as Error).message}`);
  }
  return {
    bin: 'bash',
    args: ['-c', wrapped.command],
    finish() {
      const refused = wrapped.finish().join('\n');
      for (const denial of sandboxDenials(refused, agent, policy, request.cwd, input.env.HOME)) request.onSandboxDenied?.(denial);
    },
  };
}
