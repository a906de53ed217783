import type { Logger } from '../shared/logger.js';
import { processStartTime } from './process-identity.js';
import { procAvailable, TreeUsage } from './process-tree.js';

/**
 * How often a running process tree is read (docs/decisions.md, "What a run costs the machine"):
 * often enough that a node holding memory for a second is seen, rarely enough that a chain of
 * short bash nodes does not pay for it.
 */
export const MEMORY_SAMPLE_MS = 500;

/** What one watch saw its trees use; null where /proc could not be read. */
export type TreeUsageFigures = { peakRssBytes: number; cpuSeconds: number } | null;

/** A sample over the limit: what the trees reached, and the limit they passed. */
export interface MemoryExceeded {
  rssBytes: number;
  limitBytes: number;
}

export interface TreeMemoryWatch {
  /** A process group started under the watch: its tree is sampled, and `stop` (the group's own kill) ends it past the limit. */
  onProcess(pid: number, stop: () => Promise<void>): void;
  /** Stops sampling and stops what left the groups; what the trees used (null on a second call), and the limit's passing if it happened. */
  end(): { usage: TreeUsageFigures; exceeded: MemoryExceeded | undefined };
}

let missingProcLogged = false;

/**
 * Samples the process trees of one agent or script call every `intervalMs` and stops them when
 * their total passes `limitBytes` (`max_memory`, an assistant's `maxMemory`): every process seen
 * gets SIGKILL at once, those that left the group included, then the group's own stop runs so its
 * caller ends as for any stop. The caller decides what the passing means (a node's failure, a reply's).
 */
export function watchTreeMemory(options: {
  limitBytes: number | undefined;
  logger: Logger;
  intervalMs?: number;
  /** Each sample of the trees, as it is taken. */
  onSample?: (rssBytes: number) => void;
}): TreeMemoryWatch {
  const { limitBytes, logger } = options;
  const intervalMs = options.intervalMs ?? MEMORY_SAMPLE_MS;
  // Measuring turned off (`SVC_MEMORY_SAMPLE_MS=0`): nothing recorded, nothing limited.
  if (intervalMs === 0) return { onProcess() {}, end: () => ({ usage: null, exceeded: undefined }) };
  if (!procAvailable()) {
    // Said once per server: on a machine without /proc, every node would say it again.
    if (!missingProcLogged) logger.warn('run.memory_unmeasured', { reason: '/proc is not available: nodes record no peakRssBytes or cpuSeconds' });
    missingProcLogged = true;
    return { onProcess() {}, end: () => ({ usage: null, exceeded: undefined }) };
  }
  const usage = new TreeUsage();
  // Each root with its start time: a root that ended and whose pid was reused is another process,
  // neither counted nor stopped (a reply's agent started twice keeps the first root listed).
  const roots: Array<{ pid: number; start: number | null; stop: () => Promise<void> }> = [];
  const live = () => roots.filter((root) => processStartTime(root.pid) === root.start);
  let exceeded: MemoryExceeded | undefined;
  let ended = false;
  const sample = () => {
    const current = live();
    const rss = usage.sample(current.map((root) => root.pid));
    options.onSample?.(rss);
    if (limitBytes === undefined || rss <= limitBytes || exceeded) return;
    exceeded = { rssBytes: rss, limitBytes };
    // No grace past the limit (the kernel's OOM killer gives none either): every process of the
    // tree now, those that left the group included, and then the group's own stop for the caller.
    killAll(usage.alive());
    for (const root of current) void root.stop();
  };
  // Unref'd: a sampler must never hold a finished CLI process open.
  const timer = setInterval(sample, intervalMs).unref();
  return {
    onProcess(pid, stop) {
      roots.push({ pid, start: processStartTime(pid), stop });
      sample();
    },
    end() {
      // Once: a second call (an attempt's failure path after its success path) reports nothing more.
      if (ended) return { usage: null, exceeded };
      ended = true;
      clearInterval(timer);
      // The groups end with their leaders (process-group.ts); what left them (`setsid`) and was seen
      // would outlive the call, where neither cancel nor recovery could reach it.
      killAll(usage.alive(new Set(roots.map((root) => root.pid))));
      return { usage: roots.length ? { peakRssBytes: usage.peakRssBytes, cpuSeconds: usage.cpuSeconds } : null, exceeded };
    },
  };
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
}
