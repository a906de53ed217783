import { readFileSync } from 'node:fs';

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

/** Kills the process group led by `pid` if that leader is still the very process we started. */
export function killOrphanGroup(pid: number, startTime: number | null): boolean {
  if (startTime === null || processStartTime(pid) !== startTime) return false;
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
