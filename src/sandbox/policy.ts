/**
 * What a sandboxed process may reach (docs/decisions.md, "Agents in a sandbox" and "Bash nodes in a
 * sandbox"): one policy, said to each mechanism in its own words — Claude Code's settings and
 * Codex's permission profile (agents/sandbox.ts), the sandbox runtime for bash nodes
 * (command-sandbox.ts). By default it writes only the run's worktree and a temporary directory of
 * its own, reads none of the user's secrets nor svc's home, and reaches no host.
 */

import { isAbsolute, join } from 'node:path';
import type { Permissions } from '../shared/permissions.js';

/** What a sandboxed process may reach, all paths absolute. */
export interface SandboxPolicy {
  /** Writable besides nothing: the worktree (at `edit`), the node's temporary directory, `sandbox.write`. */
  write: string[];
  /** Unreadable: the user's secrets and svc's home. */
  denyRead: string[];
  /** Readable although below a denied path: the worktree, the run's artifacts, `sandbox.read`. */
  allowRead: string[];
  /** Hosts the commands may reach: names, `*.` wildcards, `IP:port` literals. */
  network: string[];
}

/**
 * The user's secrets, below HOME, that no sandboxed agent reads (docs/contract.md, "Agents"): keys,
 * cloud and registry credentials, tokens.
 */
export const SECRET_PATHS = ['.ssh', '.aws', '.azure', '.config/gcloud', '.config/gh', '.gnupg', '.netrc', '.npmrc', '.docker', '.kube'] as const;

/** Whether a node runs sandboxed, and if not why: what its record says (`sandbox`, `sandboxOff`). */
export type SandboxDecision = { sandbox: 'on' } | { sandbox: 'off'; sandboxOff: string };

/** `full` is never sandboxed; `read` and `edit` are, unless the server runs with `SVC_SANDBOX=off`. */
export function sandboxDecision(permissions: Permissions, server: 'on' | 'off'): SandboxDecision {
  if (permissions === 'full') return { sandbox: 'off', sandboxOff: 'level full' };
  if (server === 'off') return { sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' };
  return { sandbox: 'on' };
}

/** `~` and `~/x` against the agent's HOME; an absolute path as it is. */
export const expandHome = (path: string, home: string | undefined): string =>
  path === '~' ? (home ?? path) : path.startsWith('~/') && home ? join(home, path.slice(2)) : path;

/** What goes into a node's sandbox, before paths are settled. */
export interface SandboxPlan {
  permissions: Exclude<Permissions, 'full'>;
  /** The agent's working directory (the run's worktree). */
  cwd: string;
  /** The agent's HOME, whose secrets are denied. */
  home: string | undefined;
  /** svc's home: denied, but for the worktree and the artifacts; undefined: not denied (a test's engine). */
  svcHome: string | undefined;
  /** A run's `$ARTIFACTS_DIR`; none for a conversation's reply. */
  artifactsDir: string | undefined;
  /** The node's own temporary directory (its TMPDIR). */
  tmpDir: string;
  /** The git directories the worktree's `.git` file points at: readable, never writable by the agent. */
  gitDirs: string[];
  widening: { network: readonly string[]; read: readonly string[]; write: readonly string[] } | undefined;
}

export function sandboxPolicy(plan: SandboxPlan): SandboxPolicy {
  const home = (path: string) => expandHome(path, plan.home);
  const edit = plan.permissions === 'edit';
  const extraWrite = (plan.widening?.write ?? []).map(home).filter((path) => isAbsolute(path));
  const artifacts = plan.artifactsDir ? [plan.artifactsDir] : [];
  return {
    write: [...(edit ? [plan.cwd, ...artifacts] : []), plan.tmpDir, ...extraWrite],
    denyRead: [...(plan.home ? SECRET_PATHS.map((path) => join(plan.home!, path)) : []), ...(plan.svcHome ? [plan.svcHome] : [])],
    allowRead: [plan.cwd, ...artifacts, plan.tmpDir, ...plan.gitDirs, ...(plan.widening?.read ?? []).map(home), ...extraWrite],
    network: [...(plan.widening?.network ?? [])],
  };
}
