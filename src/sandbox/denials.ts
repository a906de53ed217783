/**
 * What an agent's sandbox refused, read from what its tool calls printed (docs/decisions.md, "Agents
 * in a sandbox"): each refusal is a `sandbox_denied` event and counts on the node (`sandboxDenied`).
 * Measured words (Claude Code 2.1.328, Codex 0.169.0):
 *
 * - network: Claude Code's `<sandbox_violations>` block (`deny network-outbound HOST:PORT (…)`) in the
 *   tool's stderr and result; Codex's `Network access to "HOST" was blocked` (and its proxy's JSON
 *   answer, `{"status":"blocked","host":…,"port":…}`).
 * - files: only the error text — `PATH: No such file or directory` / `Permission denied` for a read
 *   under a denied path, `Read-only file system` for a write outside the writable ones. Such a line
 *   counts when the path is where the sandbox says no; one elsewhere is an ordinary error.
 *
 * Codex often leaves a command its sandbox refused at once out of its `--json` output (measured: 0–4
 * of 10), so some of its refusals are not seen here.
 */

import { isAbsolute, join, relative, resolve } from 'node:path';
import { realPathOf } from './real-path.js';
import type { SandboxPolicy } from './policy.js';

export interface SandboxDenial {
  kind: 'fs' | 'net' | 'escape';
  /** The path, or `host:port` (`host` when the agent names no port). */
  target: string;
  /** The tool whose call was refused (`Bash`, `exec`). */
  tool: string;
}

const under = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

const FS_ERROR = /'?((?:~|\/)[^':\n]*?)'?: (No such file or directory|Permission denied|Read-only file system)\s*$/;
const CLAUDE_NET = /deny network-outbound (\S+)/g;
const CODEX_NET = /Network access to "([^"]+)" was blocked/g;
const CODEX_PROXY = /"status":"blocked","host":"([^"]+)"[^}]*?"port":(\d+)/g;

/** The refusals in `text`, one per kind and target, as the sandbox `sandbox` decided them. */
export function sandboxDenials(text: string, tool: string, sandbox: SandboxPolicy, cwd: string, home: string | undefined): SandboxDenial[] {
  const found = new Map<string, SandboxDenial>();
  const add = (kind: SandboxDenial['kind'], target: string) => found.set(`${kind} ${target}`, { kind, target, tool });
  const hosts = new Map<string, string>();
  for (const [, host, port] of text.matchAll(CODEX_PROXY)) hosts.set(host!, `${host}:${port}`);
  for (const [, target] of text.matchAll(CLAUDE_NET)) add('net', target!);
  for (const [, host] of text.matchAll(CODEX_NET)) if (![...found.keys()].some((key) => key.startsWith(`net ${host}:`))) add('net', hosts.get(host!) ?? host!);
  for (const line of text.split('\n')) {
    const match = FS_ERROR.exec(line.trim());
    if (!match) continue;
    const written = match[1]!;
    const path = realPathOf(written.startsWith('~') && home ? join(home, written.slice(1)) : resolve(cwd, written));
    const refusedRead = match[2] !== 'Read-only file system';
    const denied = refusedRead
      ? sandbox.denyRead.some((dir) => under(path, dir)) && !sandbox.allowRead.some((dir) => under(path, dir))
      : !sandbox.write.some((dir) => under(path, dir));
    if (denied) add('fs', path);
  }
  return [...found.values()];
}
