import { readFileSync, rmSync } from 'node:fs';
import { strayProcesses } from './strays.js';

/** Reads (and removes) a node's process note written by the executor. */
export function readProcessFile(file: string): { pid: number; startTime: number | null } | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; startTime: number | null };
    rmSync(file, { force: true });
    return Number.isInteger(value.pid) && value.pid > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). Together with
 * the pid it identifies one process across a server crash: a recycled pid has another start time.
 * Null where /proc is unavailable (not Linux) or the process is gone.
 */
export function processStartTime(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses; fields after it follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Kills the process group led by `pid` if that leader is still the very process we started, and
 * what its tree started in groups of its own (strays.ts), read before the group dies.
 */
export function killOrphanGroup(pid: number, startTime: number | null): boolean {
  if (startTime === null || processStartTime(pid) !== startTime) return false;
  const strays = strayProcesses(pid);
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  } finally {
    strays.signal('SIGKILL');
  }
}
