import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

export const DEFAULT_PORT = 3090;
export const WORKTREE_PORT_MIN = 3190;
export const WORKTREE_PORT_MAX = 4089;
const WORKTREE_PORT_SPAN = WORKTREE_PORT_MAX - WORKTREE_PORT_MIN + 1;

/** How the listening port is chosen (docs/contract.md, "Port"). */
export type PortPlan = { kind: 'explicit'; port: number } | { kind: 'worktree'; port: number; fallbacks: number[] } | { kind: 'default'; port: number };

/**
 * A linked worktree has its own git dir under the main repository's common git dir. Agents often
 * run several checkouts at once, so each worktree gets a stable port of its own.
 */
export async function isLinkedWorktree(cwd: string): Promise<boolean> {
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', '--git-dir', '--git-common-dir'], { cwd, timeout: 5000 });
    const [gitDir, commonDir] = stdout.trim().split('\n');
    if (!gitDir || !commonDir) return false;
    const [a, b] = await Promise.all([realpath(resolve(cwd, gitDir)), realpath(resolve(cwd, commonDir))]);
    return a !== b;
  } catch {
    return false; // not a git checkout, or git missing
  }
}

/** `3190 + (first two bytes of md5(realpath(cwd)) as big-endian uint16 mod 900)`. */
export function worktreePort(realCwd: string): number {
  const digest = createHash('md5').update(realCwd).digest();
  return WORKTREE_PORT_MIN + (digest.readUInt16BE(0) % WORKTREE_PORT_SPAN);
}

/** The rest of the range after `port`, wrapping around, for when the preferred one is busy. */
export function worktreeFallbacks(port: number): number[] {
  const ports: number[] = [];
  for (let i = 1; i < WORKTREE_PORT_SPAN; i++) {
    ports.push(WORKTREE_PORT_MIN + ((port - WORKTREE_PORT_MIN + i) % WORKTREE_PORT_SPAN));
  }
  return ports;
}

export async function planPort(explicit: number | undefined, cwd: string): Promise<PortPlan> {
  if (explicit !== undefined) return { kind: 'explicit', port: explicit };
  if (await isLinkedWorktree(cwd)) {
    const port = worktreePort(await realpath(cwd));
    return { kind: 'worktree', port, fallbacks: worktreeFallbacks(port) };
  }
  return { kind: 'default', port: DEFAULT_PORT };
}
