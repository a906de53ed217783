/**
 * Whether an agent's sandbox can start here, checked by svc before the agent is spawned (a node
 * never runs unsandboxed by surprise: docs/decisions.md, "Agents in a sandbox"). On Linux:
 *
 * - Claude Code's sandbox needs `bwrap` (bubblewrap) and `socat` on the agent's PATH — without
 *   them, and with `failIfUnavailable`, it ends at once with "Sandbox required but unavailable".
 * - Codex 0.169 brings its own bubblewrap and network proxy: it needs user namespaces only.
 * - Both need the kernel to give a sandbox user namespaces; where a system bubblewrap is found it
 *   is tried once (`bwrap --ro-bind / / --unshare-net true`), and what it says is the reason.
 *
 * macOS sandboxes with the system's `sandbox-exec`: nothing to check. Other systems: unavailable.
 */

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** `name` itself when it is a path (it holds a `/`), else the first `name` on `path` (a PATH value); undefined unless executable. */
export async function findExecutable(name: string, path: string | undefined): Promise<string | undefined> {
  const candidates = name.includes('/')
    ? [name]
    : (path ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Whether bubblewrap at `bwrap` could make a sandbox: undefined when yes, else what it said. Once per path and process. */
const probes = new Map<string, Promise<string | undefined>>();
export function probeBwrap(bwrap: string): Promise<string | undefined> {
  let probe = probes.get(bwrap);
  if (!probe) {
    probe = new Promise((resolve) => {
      execFile(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', 'true'], { timeout: 10_000 }, (error, _stdout, stderr) =>
        resolve(error ? (String(stderr).trim() || error.message).split('\n')[0] : undefined),
      );
    });
    probes.set(bwrap, probe);
  }
  return probe;
}

/** `/proc/sys/user/max_user_namespaces` of 0 refuses every user namespace. */
export async function userNamespacesRefused(): Promise<boolean> {
  const max = await readFile('/proc/sys/user/max_user_namespaces', 'utf8').catch(() => undefined);
  return max !== undefined && Number(max.trim()) === 0;
}

export interface SandboxCheckInput {
  agent: 'claude' | 'codex';
  /** The PATH the agent gets. */
  path: string | undefined;
  platform?: NodeJS.Platform;
}

/** Why the agent's sandbox cannot start, naming what is missing; undefined when it can. */
export async function sandboxUnavailable({ agent, path, platform = process.platform }: SandboxCheckInput): Promise<string | undefined> {
  if (platform === 'darwin') return undefined;
  if (platform !== 'linux') return `${agent}'s sandbox is not supported on ${platform}`;
  if (await userNamespacesRefused()) return 'the kernel refuses user namespaces (/proc/sys/user/max_user_namespaces is 0), which the sandbox needs';
  const bwrap = await findExecutable('bwrap', path);
  if (agent === 'claude') {
    const missing = [bwrap ? undefined : 'bubblewrap (bwrap)', (await findExecutable('socat', path)) ? undefined : 'socat'].filter(Boolean);
    if (missing.length) return `claude's sandbox needs ${missing.join(' and ')} on PATH: install them (apt install bubblewrap socat)`;
  }
  const refused = bwrap ? await probeBwrap(bwrap) : undefined;
  return refused ? `bubblewrap cannot create a sandbox here (user namespaces refused?): ${refused}` : undefined;
}
