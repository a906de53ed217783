import { watchTreeMemory, type TreeMemoryWatch } from '../../processes/index.js';
import type { Logger } from '../../shared/logger.js';
import { formatSize } from '../../shared/size.js';
import { NodeFailure } from './nodes/types.js';

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

export interface NodeMemoryWatch extends Pick<TreeMemoryWatch, 'onProcess'> {
  /** Stops sampling; what the attempt used (null on a second call), and its failure if it passed its limit. */
  end(): { usage: AttemptUsage; exceeded: NodeFailure | undefined };
}

/** The failure of a call stopped past its limit: the limit and the peak in the message. */
export function memoryExceeded(rssBytes: number, limitBytes: number): NodeFailure {
  return new NodeFailure('memory_exceeded', `its processes reached ${formatSize(rssBytes)}, over max_memory ${formatSize(limitBytes)}, and were stopped`);
}

/**
 * Samples one attempt's process trees (processes/tree-memory.ts), reports them to the run, and
 * stops the attempt when their total passes `limitBytes` (`max_memory`): the node then fails
 * `memory_exceeded`, whatever its process exited with once stopped.
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
  const { nodeId, run } = options;
  const watch = watchTreeMemory({
    limitBytes: options.limitBytes,
    logger: options.logger,
    intervalMs: options.intervalMs,
    onSample: (rss) => {
      run.report(nodeId, rss);
      options.onSample?.(rss);
    },
  });
  let finished = false;
  return {
    onProcess: watch.onProcess,
    end() {
      const { usage, exceeded } = watch.end();
      if (!finished) run.finished(nodeId);
      finished = true;
      return { usage, exceeded: exceeded && memoryExceeded(exceeded.rssBytes, exceeded.limitBytes) };
    },
  };
}
