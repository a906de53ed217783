import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { agentSandbox, sandboxDecision, type AgentSandbox } from '../../../agents/index.js';
import { DEFAULT_NODE_PERMISSIONS } from '../../../shared/permissions.js';
import type { NodeRunContext, PromptDeps } from './types.js';

/**
 * The git directories a linked worktree's `.git` file points at (its own under the common
 * directory, and the common one): readable to a sandboxed agent, so `git status` and `git diff`
 * work; not writable, as svc commits the node's change itself (docs/decisions.md, "Agents in a
 * sandbox"). A worktree whose `.git` is a directory has it inside the worktree already.
 */
async function gitDirsOf(cwd: string): Promise<string[]> {
  const pointer = await readFile(join(cwd, '.git'), 'utf8').catch(() => undefined);
  const gitDir = pointer && /^gitdir:\s*(.+)$/m.exec(pointer)?.[1]?.trim();
  if (!gitDir) return [];
  const own = isAbsolute(gitDir) ? gitDir : resolve(cwd, gitDir);
  const common = (await readFile(join(own, 'commondir'), 'utf8').catch(() => '')).trim();
  return common ? [own, resolve(own, common)] : [own];
}

/**
 * `path` with its symbolic links resolved, as far as it exists (a path that does not exist yet keeps
 * its last parts): the sandboxes mount real paths, and Codex's bubblewrap cannot make a mount point
 * below a symbolic link ("Can't mkdir parents", measured with a HOME reached through one).
 */
async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await realPathOf(parent), basename(path));
  }
}

const realPaths = async (paths: string[]) => [...new Set(await Promise.all(paths.map(realPathOf)))];

export interface PreparedSandbox {
  /** Null: the agent runs unsandboxed (`full`, `SVC_SANDBOX=off`). */
  sandbox: AgentSandbox | null;
  /** The agent's environment, with `TMPDIR` in its sandbox. */
  env: NodeJS.ProcessEnv;
  /** Removes the node's temporary directory. */
  dispose(): Promise<void>;
}

/**
 * A prompt node's sandbox: the decision on its record (executor.ts) made again here, and for a
 * sandboxed agent the paths — its worktree, the run's artifacts, a temporary directory of its own
 * (its `TMPDIR`, removed when the call ends), the user's secrets and svc's home denied — with the
 * workflow's and node's `sandbox:` widening.
 */
export async function prepareAgentSandbox(
  { run, node, artifactsDir }: Pick<NodeRunContext, 'run' | 'node' | 'artifactsDir'>,
  { mode, svcHome }: PromptDeps['sandbox'],
  env: NodeJS.ProcessEnv,
): Promise<PreparedSandbox> {
  const permissions = node.permissions ?? DEFAULT_NODE_PERMISSIONS;
  if (permissions === 'full' || sandboxDecision(permissions, mode).sandbox === 'off') return { sandbox: null, env, dispose: async () => {} };
  const root = svcHome ? join(svcHome, 'tmp') : tmpdir();
  await mkdir(root, { recursive: true });
  const tmpDir = await mkdtemp(join(root, `agent-${run.id}-${node.id}-`));
  const planned = agentSandbox({
    permissions,
    cwd: run.cwd,
    home: env.HOME,
    svcHome: svcHome ?? artifactsDir,
    artifactsDir,
    tmpDir,
    gitDirs: await gitDirsOf(run.cwd),
    widening: node.sandbox,
  });
  const sandbox = {
    write: await realPaths(planned.write),
    denyRead: await realPaths(planned.denyRead),
    allowRead: await realPaths(planned.allowRead),
    network: planned.network,
  };
  return { sandbox, env: { ...env, TMPDIR: tmpDir }, dispose: () => rm(tmpDir, { recursive: true, force: true }) };
}
