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

import type { Permissions } from '../shared/permissions.js';
import type { SandboxPolicy } from '../sandbox/index.js';

/** Claude Code's `--settings` for the sandbox: its own sandbox of Bash, failing rather than running commands outside it. */
export function claudeSandboxSettings(permissions: Permissions, sandbox: SandboxPolicy): Record<string, unknown> {
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
export function codexSandboxArgs(permissions: Permissions, sandbox: SandboxPolicy): string[] {
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
