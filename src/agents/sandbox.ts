/**
 * An agent's OS sandbox (docs/decisions.md, "Agents in a sandbox"), said to each CLI in its own
 * words: Claude Code's sandbox of its Bash tool through `--settings`, Codex's permission profile
 * through `-c`. Measured with Claude Code 2.1.328 and Codex 0.169.0 (docs/decisions.md):
 *
 * - Claude Code: `sandbox.filesystem.denyRead` makes a denied path look absent ("No such file or
 *   directory"), `allowRead` reopens a path below a denied one, `allowWrite` is all that is
 *   writable; `network.allowedDomains` with `strictAllowlist` is enforced by its proxy, per host and
 *   port (`127.0.0.1:PORT` allows that port only). `failIfUnavailable` makes a missing bubblewrap or
 *   socat an error result instead of unsandboxed commands. It confines Bash, not its own file tools
 *   (`Write`, `Edit`), which its permission mode governs, nor its own model traffic.
 * - Codex: a profile extending `:workspace` (edit) or `:read-only` (read) with filesystem entries
 *   (`none`, `read`, `write`; the most specific path wins) and a domain allowlist enforced by its
 *   network proxy. The allowlist is per host: a port in an entry is not enforced, so svc passes the
 *   host. Loopback and private addresses are refused unless `allow_local_binding` is set, which svc
 *   sets only when the workflow names such an address.
 */

import { isAbsolute, join } from 'node:path';
import type { Permissions } from '../shared/permissions.js';

/** What an agent's commands may reach, all paths absolute. */
export interface AgentSandbox {
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

/** Whether a node's agent runs sandboxed, and if not why: what its record says (`sandbox`, `sandboxOff`). */
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

export function agentSandbox(plan: SandboxPlan): AgentSandbox {
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

/** Claude Code's `--settings` for the sandbox: its own sandbox of Bash, failing rather than running commands outside it. */
export function claudeSandboxSettings(permissions: Permissions, sandbox: AgentSandbox): Record<string, unknown> {
  return {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      // At `read` a command still needs the permission it needs without a sandbox (refused in -p mode):
      // the sandbox adds to the permission check there, it does not replace it.
      ...(permissions === 'read' ? { autoAllowBashIfSandboxed: false } : {}),
      filesystem: { denyRead: sandbox.denyRead, allowRead: sandbox.allowRead, allowWrite: sandbox.write },
      network: { allowedDomains: sandbox.network, strictAllowlist: true },
    },
  };
}

export const CLAUDE_SANDBOX_UNAVAILABLE = /Sandbox required but unavailable:?\s*([^\n]*)/i;

/** The permission profile svc gives codex, named so in `default_permissions`. */
export const CODEX_PROFILE = 'svc';

const LOCAL_ADDRESS = /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.0\.0\.0)/;

/** A TOML inline table of strings, keys quoted (paths and hosts carry dots). */
const inlineTable = (entries: Array<[string, string]>) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}=${JSON.stringify(value)}`).join(',')}}`;

/**
 * Codex's `-c` overrides for the sandbox: a permission profile instead of `--sandbox` (the two
 * are not given together). Filesystem entries go from the widest to the narrowest; codex applies
 * the most specific path.
 */
export function codexSandboxArgs(permissions: Permissions, sandbox: AgentSandbox): string[] {
  const p = `permissions.${CODEX_PROFILE}`;
  const files = new Map<string, string>();
  for (const path of sandbox.denyRead) files.set(path, 'none');
  for (const path of sandbox.allowRead) files.set(path, 'read');
  for (const path of sandbox.write) files.set(path, 'write');
  // Per host: codex does not enforce a port (measured), so `IP:port` allows the host.
  const hosts = [...new Set(sandbox.network.map((entry) => entry.replace(/:\d+$/, '')))];
  const set = (key: string, value: string) => ['-c', `${key}=${value}`];
  return [
    ...set('default_permissions', JSON.stringify(CODEX_PROFILE)),
    ...set(`${p}.extends`, JSON.stringify(permissions === 'edit' ? ':workspace' : ':read-only')),
    ...set(`${p}.filesystem`, inlineTable([...files].sort(([a], [b]) => a.length - b.length))),
    // Through its proxy even with no host allowed: a refused request is then said ("Network access to
    // … was blocked") and counted, where a profile without network only fails to connect.
    ...set(`${p}.network.enabled`, 'true'),
    ...set(`${p}.network.domains`, inlineTable(hosts.map((host) => [host, 'allow']))),
    ...(hosts.some((host) => LOCAL_ADDRESS.test(host)) ? set(`${p}.network.allow_local_binding`, 'true') : []),
    ...set('features.network_proxy', 'true'),
  ];
}
