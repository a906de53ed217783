/**
 * What an agent may do in its working directory (docs/decisions.md, "Permission flags, measured"), and the command-line
 * flags that say so to each CLI. Measured against Claude Code 2.1.328 and Codex 0.169.0:
 *
 * - `read`: it reads and searches, and changes nothing. Claude Code in its default permission mode
 *   answers a file write, and any command that would change a file, with a visible
 *   `permission_denied` (hiding tools with `--disallowedTools` would not show the refusal); codex
 *   runs in its read-only sandbox (a write fails "Read-only file system").
 * - `edit`: it edits files and runs commands in the run's directory. `acceptEdits` alone lets
 *   Claude Code write files but still refuses many commands (`sh -c …`), so Bash is allowed
 *   explicitly; codex gets the workspace-write sandbox.
 * - `full`: no checks at all. Claude Code refuses `bypassPermissions` when it runs as root unless
 *   `IS_SANDBOX=1` (see `fullRefusal`).
 */

import type { Permissions } from '../shared/permissions.js';

const CLAUDE_FLAGS: Record<Permissions, readonly string[]> = {
  read: ['--permission-mode', 'default'],
  edit: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
  full: ['--permission-mode', 'bypassPermissions'],
};

const CODEX_FLAGS: Record<Permissions, readonly string[]> = {
  read: ['--sandbox', 'read-only'],
  edit: ['--sandbox', 'workspace-write'],
  full: ['--dangerously-bypass-approvals-and-sandbox'],
};

export const claudePermissionArgs = (permissions: Permissions): string[] => [...CLAUDE_FLAGS[permissions]];
export const codexPermissionArgs = (permissions: Permissions): string[] => [...CODEX_FLAGS[permissions]];

/**
 * Why Claude Code would refuse `full` in this process, or undefined when it would not: as root it
 * exits at once ("cannot be used with root/sudo privileges") unless its environment has
 * `IS_SANDBOX=1` (exactly `1`: other values are refused too).
 */
export function fullRefusal(uid: number | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (uid !== 0 || env.IS_SANDBOX === '1') return undefined;
  return (
    "claude refuses permissions 'full' (--permission-mode bypassPermissions) when it runs as root. " +
    'Inside a container or sandbox, set IS_SANDBOX=1 in the environment of the svc server; otherwise run svc as a ' +
    "non-root user, or give this node permissions 'edit'."
  );
}

/** Claude Code's own words when it refuses `bypassPermissions` as root (on stderr, exit 1). */
export const CLAUDE_ROOT_REFUSAL = /cannot be used with root\/sudo privileges/i;
