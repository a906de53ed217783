import { readdirSync, readFileSync } from 'node:fs';

/**
 * What a process tree costs the machine, read from /proc (docs/decisions.md, "What a run costs the
 * machine"): the resident memory of every live descendant of a root and the CPU time of each one
 * ever seen. Descendants are followed through `/proc/<pid>/task/<tid>/children`, so a process that
 * left the root's process group (`setsid`) is still counted; one that was re-parented to init after
 * its parent died is no longer anyone's child here, and is no longer counted — but once seen, it is
 * still found by its pid and start time to be stopped (`alive`).
 */

/** USER_HZ: /proc reports CPU time in these ticks, fixed at 100 by the kernel's ABI on Linux. */
const TICKS_PER_SECOND = 100;

/** Whether this machine has a /proc to read (not macOS, not a container without it). */
export function procAvailable(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process ended between the listing and the read
  }
}

/** The children of every thread of `pid` (a child belongs to the thread that forked it). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tasks) {
    for (const child of (read(`/proc/${pid}/task/${tid}/children`) ?? '').split(' ')) if (child.trim()) children.push(Number(child));
  }
  return children;
}

/** The pids of `root` and all its live descendants. */
export function processTree(root: number): number[] {
  const seen = new Set<number>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    queue.push(...childrenOf(pid));
  }
  return [...seen];
}

interface ProcessUsage {
  /** pid and start time: a recycled pid is another process. */
  key: string;
  /** Its process group: one other than its root's left the group (`setsid`), and a group kill misses it. */
  group: number;
  rssBytes: number;
  cpuTicks: number;
}

function usageOf(pid: number): ProcessUsage | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses; the fields after it follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuTicks = Number(fields[11]) + Number(fields[12]); // utime + stime
  // VmRSS in kB, rather than stat's rss in pages: no page size to guess. Absent for a zombie.
  const rssKb = /^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
  return {
    key: `${pid}:${fields[19]}`,
    group: Number(fields[2]),
    rssBytes: rssKb === undefined ? 0 : Number(rssKb) * 1024,
    cpuTicks: Number.isFinite(cpuTicks) ? cpuTicks : 0,
  };
}

/** A running tally of process trees: the peak of their summed RSS, and the CPU time of what was seen. */
export class TreeUsage {
  #peakRssBytes = 0;
  readonly #cpuTicks = new Map<string, number>();
  /** Every process seen, by key, with its pid and group: what may still need stopping when the node ends. */
  readonly #seen = new Map<string, { pid: number; group: number }>();

  /** Reads the trees of `roots` now; returns their summed RSS in bytes. */
  sample(roots: readonly number[]): number {
    let rss = 0;
    for (const root of roots) {
      for (const pid of processTree(root)) {
        const usage = usageOf(pid);
        if (usage === undefined) continue;
        rss += usage.rssBytes;
        // A process's CPU time only grows: its latest reading is all of it up to now.
        this.#cpuTicks.set(usage.key, usage.cpuTicks);
        this.#seen.set(usage.key, { pid, group: usage.group });
      }
    }
    this.#peakRssBytes = Math.max(this.#peakRssBytes, rss);
    return rss;
  }

  /**
   * The processes seen that still run, outside the process groups `except` when given: found by
   * pid and start time, so a process re-parented to init after its parent died is still found,
   * and a recycled pid is never taken for one seen.
   */
  alive(except?: ReadonlySet<number>): number[] {
    const pids: number[] = [];
    for (const [key, { pid, group }] of this.#seen) {
      if (except?.has(group)) continue;
      const now = usageOf(pid);
      if (now?.key === key) pids.push(pid);
      else this.#seen.delete(key);
    }
    return pids;
  }

  get peakRssBytes(): number {
    return this.#peakRssBytes;
  }

  /** The CPU time (user and system) of every process seen, as last read: what ran between two samples and ended is not counted. */
  get cpuSeconds(): number {
    let ticks = 0;
    for (const value of this.#cpuTicks.values()) ticks += value;
    return ticks / TICKS_PER_SECOND;
  }
}
