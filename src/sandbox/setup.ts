import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { realPathOf } from './real-path.js';
import type { Permissions } from '../shared/permissions.js';
import { sandboxPolicy, sandboxDecision, type SandboxPolicy, type SandboxPlan } from './policy.js';

/**
 * The git directories a linked worktree's `.git` file points at (its own under the common
 * directory, and the common one): readable to a sandboxed agent, so `git status` and `git diff`
 * work; not writable, as svc commits a node's change itself (docs/decisions.md, "Agents in a
 * sandbox"). A checkout whose `.git` is a directory has it inside already.
 */
async function gitDirsOf(cwd: string): Promise<string[]> {
  const pointer = await readFile(join(cwd, '.git'), 'utf8').catch(() => undefined);
  const gitDir = pointer && /^gitdir:\s*(.+)$/m.exec(pointer)?.[1]?.trim();
  if (!gitDir) return [];
  const own = isAbsolute(gitDir) ? gitDir : resolve(cwd, gitDir);
  const common = (await readFile(join(own, 'commondir'), 'utf8').catch(() => '')).trim();
  return common ? [own, resolve(own, common)] : [own];
}

const realPaths = (paths: string[]) => [...new Set(paths.map(realPathOf))];

export interface SandboxSetup {
  permissions: Permissions;
  /** `SVC_SANDBOX`. */
  mode: 'on' | 'off';
  cwd: string;
  /** The agent's environment: its HOME's secrets are denied, and it gets a TMPDIR of its own. */
  env: NodeJS.ProcessEnv;
  /** svc's home, denied but for the cwd and the artifacts; undefined: only the user's secrets are denied. */
  svcHome: string | undefined;
  /** A run's `$ARTIFACTS_DIR` (none for a conversation's reply). */
  artifactsDir?: string;
  widening?: SandboxPlan['widening'];
  /** Names the temporary directory (`agent-<label>-…`). */
  label: string;
}

export interface PreparedSandbox {
  /** Null: the agent runs unsandboxed (`full`, `SVC_SANDBOX=off`). */
  sandbox: SandboxPolicy | null;
  /** The agent's environment, with `TMPDIR` in its sandbox. */
  env: NodeJS.ProcessEnv;
  /** Removes the call's temporary directory. */
  dispose(): Promise<void>;
}

/**
 * An agent call's sandbox: for `read` and `edit` (unless `SVC_SANDBOX=off`) the paths — its cwd, the
 * run's artifacts, a temporary directory of its own (its `TMPDIR`, in svc's home, removed when the
 * call ends), the user's secrets and svc's home denied — with the workflow's and node's widening,
 * every path resolved through its symbolic links.
 */
export async function setUpSandbox(setup: SandboxSetup): Promise<PreparedSandbox> {
  const { permissions, env } = setup;
  if (permissions === 'full' || sandboxDecision(permissions, setup.mode).sandbox === 'off') return { sandbox: null, env, dispose: async () => {} };
  const root = setup.svcHome ? join(setup.svcHome, 'tmp') : tmpdir();
  await mkdir(root, { recursive: true });
  const tmpDir = await mkdtemp(join(root, `agent-${setup.label}-`));
  const planned = sandboxPolicy({
    permissions,
    cwd: setup.cwd,
    home: env.HOME,
    svcHome: setup.svcHome,
    artifactsDir: setup.artifactsDir,
    tmpDir,
    gitDirs: await gitDirsOf(setup.cwd),
    widening: setup.widening,
  });
  const sandbox = {
    write: realPaths(planned.write),
    denyRead: realPaths(planned.denyRead),
    allowRead: realPaths(planned.allowRead),
    network: planned.network,
  };
  return { sandbox, env: { ...env, TMPDIR: tmpDir }, dispose: () => rm(tmpDir, { recursive: true, force: true }) };
}
