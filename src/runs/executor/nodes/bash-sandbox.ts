import { lineSplitter } from '../../../agents/index.js';
import { commandSandboxTools, sandboxCommand, sandboxDenials, setUpSandbox, type SandboxDecision, type SandboxedCommand } from '../../../sandbox/index.js';
import { mergeSandbox, shellQuote, type WorkflowNode } from '../../../workflows/index.js';
import type { RunRecord } from '../../model/types.js';
import { NodeFailure, type NodeRunContext, type SandboxDeps } from './types.js';

/**
 * Whether values from outside reach the run's scripts: a webhook's payload started it, an agent
 * (`svc mcp`) or another machine chose its start (`outside`), or a signal delivered a payload (a
 * wait for an event that completed). Its bash nodes are then sandboxed by default.
 */
export function valuesFromOutside(run: Pick<RunRecord, 'trigger' | 'outside' | 'nodes'>): boolean {
  return (
    run.trigger === 'webhook' ||
    run.outside !== undefined ||
    Object.values(run.nodes).some((state) => state.waitEvent !== undefined && state.status === 'completed')
  );
}

/**
 * A bash node's sandbox (docs/decisions.md, "Bash nodes in a sandbox"): on when the node asks
 * (`sandbox: true` or a widening), when the server says so for every bash node (`SVC_SANDBOX_BASH`),
 * or when the run has values from outside — unless the node declines (`sandbox: false`), or the
 * server runs with `SVC_SANDBOX=off`. Undefined when none was asked for: the node runs as bash
 * nodes always have, and its record says nothing of a sandbox.
 */
export function bashSandboxDecision(
  node: Pick<WorkflowNode, 'bashSandbox'>,
  run: Pick<RunRecord, 'trigger' | 'outside' | 'nodes'>,
  deps: Pick<SandboxDeps, 'mode' | 'bash'>,
): SandboxDecision | undefined {
  const outside = valuesFromOutside(run);
  if (node.bashSandbox === false) return outside || deps.bash ? { sandbox: 'off', sandboxOff: 'sandbox: false' } : undefined;
  if (node.bashSandbox !== true && !deps.bash && !outside) return undefined;
  return deps.mode === 'off' ? { sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' } : { sandbox: 'on' };
}

/** A bash node's script in its sandbox: the command line to run, its environment, and what to do after. */
export interface ConfinedBash {
  /** `bash -c` this. */
  command: string;
  env: NodeJS.ProcessEnv;
  /** Each line the script printed on stderr: a refusal of the sandbox (a denied read or write) is told. */
  stderr(chunk: Buffer): void;
  /** After the script exited: the runtime's own refusals (network) are told, its registration ends, the node's TMPDIR goes. */
  finish(): Promise<void>;
}

/**
 * Sets up a bash node's sandbox (sandbox/command-sandbox.ts) over `script` (`bash -c` arguments, or
 * a script file's): the same policy as an agent's at `edit` — the worktree, the run's artifacts and
 * a TMPDIR of its own writable; the user's secrets and svc's home unreadable; the workflow's and
 * node's `sandbox:` hosts reachable, no other. Fails `sandbox_unavailable` naming what is missing.
 */
export async function confineBash(
  { run, node, artifactsDir, onSandboxDenied }: Pick<NodeRunContext, 'run' | 'node' | 'artifactsDir' | 'onSandboxDenied'>,
  deps: SandboxDeps,
  scriptArgs: string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<ConfinedBash> {
  const tools = await commandSandboxTools(env.PATH);
  if (typeof tools === 'string') throw new NodeFailure('sandbox_unavailable', tools);
  const prepared = await setUpSandbox({
    permissions: 'edit',
    mode: 'on',
    cwd: run.cwd,
    env,
    svcHome: deps.svcHome,
    artifactsDir,
    widening: mergeSandbox(run.setup?.sandbox, node.sandbox),
    label: `${run.id}-${node.id}`,
  });
  const policy = prepared.sandbox!;
  const tell = (text: string) => {
    for (const denial of sandboxDenials(text, 'bash', policy, run.cwd, env.HOME)) onSandboxDenied(denial);
  };
  let wrapped: SandboxedCommand;
  try {
    const script = scriptArgs[0] === '-c' ? scriptArgs[1]! : `bash ${shellQuote(scriptArgs[0]!)}`;
    wrapped = await sandboxCommand(script, policy, prepared.env.TMPDIR!, tools, signal);
  } catch (error) {
    await prepared.dispose();
    throw new NodeFailure('sandbox_unavailable', `the sandbox could not be set up: ${(error as Error).message}`);
  }
  // A line longer than this is no error message of a tool; it is not read for refusals.
  const lines = lineSplitter(64 * 1024, tell, () => undefined);
  return {
    command: wrapped.command,
    env: prepared.env,
    stderr: (chunk) => lines.push(chunk),
    async finish() {
      lines.end();
      tell(wrapped.finish().join('\n'));
      await prepared.dispose();
    },
  };
}
