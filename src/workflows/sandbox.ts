/**
 * `sandbox:` in a workflow or on an agent node: what its agent's OS sandbox is widened by
 * (docs/workflows.md, "Sandbox"; docs/decisions.md, "Agents in a sandbox"). By default an agent at
 * `read` or `edit` writes only its run's worktree and a temporary directory of its own, reads none
 * of the user's secrets nor svc's home, and reaches no host. A workflow or node adds:
 *
 * - `network`: hosts its commands may reach — a host name (`registry.npmjs.org`), a `*.` wildcard
 *   (`*.github.com`), or an `IP:port` literal (`127.0.0.1:5432`, a local service);
 * - `read`: paths readable although under a denied one (`~/.cache/pip`);
 * - `write`: paths writable besides the worktree.
 *
 * Paths are absolute or start with `~/` (the agent's HOME). The node's lists add to the workflow's.
 */

import * as z from 'zod';
import { quoteValue } from './problems.js';

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^(?:\\*\\.)?${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);
const IPV4_PORT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}):(\d{1,5})$/;

/** Whether `entry` is a host name, a `*.` wildcard of one, or an IPv4 `IP:port` literal. */
export function isSandboxHost(entry: string): boolean {
  const ip = IPV4_PORT.exec(entry);
  if (ip) {
    const port = Number(ip[5]);
    return ip.slice(1, 5).every((part) => Number(part) <= 255) && port >= 1 && port <= 65535;
  }
  // A bare IP is not a host name: a local service is named with its port.
  if (/^[\d.]+$/.test(entry.replace(/^\*\./, ''))) return false;
  return entry.length <= 253 && HOST_NAME.test(entry);
}

const hostSchema = z.string().refine(isSandboxHost, {
  error: (issue) =>
    `invalid sandbox host ${quoteValue(issue.input)}: a host name (registry.npmjs.org), a '*.' wildcard (*.github.com) or an IP:port literal (127.0.0.1:5432) — no scheme, path or bare '*'`,
});

const pathSchema = z.string().refine((path) => path.startsWith('/') || path === '~' || path.startsWith('~/'), {
  error: (issue) => `invalid sandbox path ${quoteValue(issue.input)}: an absolute path or one starting with '~/'`,
});

export const RawSandboxSchema = z.strictObject({
  network: z.array(hostSchema).optional(),
  read: z.array(pathSchema).optional(),
  write: z.array(pathSchema).optional(),
});

export type RawSandbox = z.infer<typeof RawSandboxSchema>;

/** What a node's sandbox is widened by: its workflow's lists and its own, merged. */
export interface SandboxWidening {
  readonly network: readonly string[];
  readonly read: readonly string[];
  readonly write: readonly string[];
}

/**
 * Two `sandbox:` lists merged — the workflow's and the node's, or the repository's
 * (`.svc/worktree.yaml`) and a node's — one list each, without repeats; undefined when neither says anything.
 */
export function mergeSandbox(workflow: Partial<SandboxWidening> | undefined, node: Partial<SandboxWidening> | undefined): SandboxWidening | undefined {
  if (!workflow && !node) return undefined;
  const both = (key: keyof SandboxWidening) => [...new Set([...(workflow?.[key] ?? []), ...(node?.[key] ?? [])])];
  return { network: both('network'), read: both('read'), write: both('write') };
}
