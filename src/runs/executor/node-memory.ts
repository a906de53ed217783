import { procAvailable, TreeUsage } from '../../processes/index.js';
import type { Logger } from '../../shared/logger.js';
import { formatSize } from '../../shared/size.js';
import { NodeFailure } from './nodes/types.js';

/**
 * How often a running node's process tree is read (docs/decisions.md, "What a run costs the
 * machine"): often enough that a node holding memory for a second is seen, rarely enough that a
 * chain of short bash nodes does not pay for it.
 */
export const MEMORY_SAMPLE_MS = 500;

/** The run's memory across its nodes running at once: the latest sample of each, and the peak of their sum. */
export class RunMemory {
  readonly #current = new Map<string, number>();
  #peak: number;

  /** `onPeak` is told each new peak of the concurrent total; `previousPeak`, what an earlier execution of the run (a resume) saw. */
  constructor(
    previousPeak: number | null | undefined,
    private readonly onPeak: (bytes: number) => void,
  ) {
    this.#peak = previousPeak ?? 0;
  }

  report(nodeId: string, bytes: number): void {
    this.#current.set(nodeId, bytes);
    let total = 0;
    for (const value of this.#current.values()) total += value;
    if (total > this.#peak) {
      this.#peak = total;
      this.onPeak(total);
    }
  }

  finished(nodeId: string): void {
    this.#current.delete(nodeId);
  }
}

/** What one attempt of a node used; null where /proc could not be read. */
export type AttemptUsage = { peakRssBytes: number; cpuSeconds: number } | null;

export interface NodeMemoryWatch {
  /** A process group the attempt started: its tree is sampled, and `stop` (the group's own kill) ends it past the limit. */
  onProcess(pid: number, stop: () => Promise<void>): void;
  /** Stops sampling; what the attempt used (null on a second call), and its failure if it passed its limit. */
  end(): { usage: AttemptUsage; exceeded: NodeFailure | undefined };
}

let missingProcLogged = false;

/**
 * Samples one attempt's process trees every `intervalMs`, reports them to the run, and stops the
 * attempt when their total passes `limitBytes` (`max_memory`): the node then fails `memory_exceeded`,
 * whatever its process exited with once stopped.
 */
export function watchNodeMemory(options: {
  nodeId: string;
  limitBytes: number | undefined;
  run: RunMemory;
  logger: Logger;
  intervalMs?: number;
  /** Each sample of the attempt's trees, as it is taken: the server's memory admission counts it, and the live figure shows it (`memory-events.ts` throttles that). */
  onSample?: (rssBytes: number) => void;
}): NodeMemoryWatch {
  const { nodeId, limitBytes, run, logger } = options;
  if (!procAvailable()) {
    // Said once per server: on a machine without /proc, every node would say it again.
    if (!missingProcLogged) logger.warn('run.memory_unmeasured', { reason: '/proc is not available: nodes record no peakRssBytes or cpuSeconds' });
    missingProcLogged = true;
    return { onProcess() {}, end: () => ({ usage: null, exceeded: undefined }) };
  }
  const usage = new TreeUsage();
  const roots: number[] = [];
  const stops: Array<() => Promise<void>> = [];
  let exceeded: NodeFailure | undefined;
  let ended = false;
  const sample = () => {
    const rss = usage.sample(roots);
    run.report(nodeId, rss);
    options.onSample?.(rss);
    if (limitBytes === undefined || rss <= limitBytes || exceeded) return;
    exceeded = new NodeFailure('memory_exceeded', `its processes reached ${formatSize(rss)}, over max_memory ${formatSize(limitBytes)}, and were stopped`);
    // No grace past the limit (the kernel's OOM killer gives none either): every process of the
    // tree now, those that left the group included, and then the group's own stop for the runner.
    killAll(usage.alive());
    for (const stop of stops) void stop();
  };
  // Unref'd: a sampler must never hold a finished CLI process open.
  const timer = setInterval(sample, options.intervalMs ?? MEMORY_SAMPLE_MS).unref();
  return {
    onProcess(pid, stop) {
      roots.push(pid);
      stops.push(stop);
      sample();
    },
    end() {
      // Once: a second call (the attempt's failure path after its success path) reports nothing more.
      if (ended) return { usage: null, exceeded };
      ended = true;
      clearInterval(timer);
      run.finished(nodeId);
      // The groups end with their leaders (process-group.ts); what left them (`setsid`) and was seen
      // would outlive the node, where neither cancel nor recovery could reach it.
      killAll(usage.alive(new Set(roots)));
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
