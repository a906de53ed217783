import { readFileSync } from 'node:fs';
import { MEMORY_SAMPLE_MS } from './tree-memory.js';

/** What /proc/meminfo says of the machine, in bytes; null where it cannot be read. */
export interface MemInfo {
  totalBytes: number;
  availableBytes: number;
}

/** Reads MemTotal and MemAvailable from /proc/meminfo (null without /proc, as on macOS). */
export function readMemInfo(path = '/proc/meminfo'): MemInfo | null {
  try {
    const text = readFileSync(path, 'utf8');
    const kib = (name: string) => {
      const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
      return match ? Number(match[1]) * 1024 : null;
    };
    const total = kib('MemTotal');
    const available = kib('MemAvailable');
    return total === null || available === null ? null : { totalBytes: total, availableBytes: available };
  } catch {
    return null;
  }
}

/** The budget without `SVC_MEMORY_BUDGET`: this share of MemTotal (docs/decisions.md, "Memory admission"). */
export const DEFAULT_BUDGET_SHARE = 0.75;

/** The budget without `SVC_MEMORY_BUDGET`: `DEFAULT_BUDGET_SHARE` of MemTotal, or null where /proc/meminfo cannot be read. */
export function defaultMemoryBudgetBytes(meminfo: () => MemInfo | null = () => readMemInfo()): number | null {
  const total = meminfo()?.totalBytes;
  return total === undefined ? null : Math.floor(total * DEFAULT_BUDGET_SHARE);
}

/** What MemAvailable must keep once a node's estimate is taken from it, so the machine itself stays usable. */
export const MEMORY_AVAILABLE_FLOOR_BYTES = 256 * 1024 ** 2;

/** A node's estimate when it has no `memory:`: by kind (a bash script, or an agent CLI with its own runtime). */
export const DEFAULT_NODE_ESTIMATE_BYTES = { bash: 100 * 1024 ** 2, agent: 400 * 1024 ** 2 } as const;

/** How often waiters are looked at again while any wait: running nodes' samples and MemAvailable change without an event. */
export const ADMISSION_RECHECK_MS = 500;

interface Admitted {
  estimate: number;
  measured: number;
  /** Background work's: called when a node has to wait, to give its place back at once (`tryAcquireYielding`). */
  yieldPlace?: (() => void) | undefined;
}

interface Waiter {
  estimate: number;
  grant(): void;
}

/** A node's place in the budget while it runs: its latest sample, and its release (once). */
export interface MemoryGrant {
  /** The node's latest measured memory (node-memory.ts samples). */
  measured(bytes: number): void;
  release(): void;
}

/**
 * The server's memory budget for the nodes running at once, across runs and conversations
 * (docs/contract.md, "Memory admission"). A node is admitted when the running nodes' total — each
 * counted at the larger of its estimate and its latest sample, since a node just started has not
 * grown yet — plus its own estimate fits the budget, and MemAvailable less its estimate keeps the
 * floor. Strictly first come, first served: a waiter behind one that does not fit waits too, so a
 * large node is never starved by smaller ones. A node larger than the budget runs once nothing else does.
 */
export class MemoryAdmission {
  readonly #admitted = new Set<Admitted>();
  readonly #queue: Waiter[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #budget: number | null;

  constructor(options: {
    /** `SVC_MEMORY_BUDGET` in bytes, or null for `DEFAULT_BUDGET_SHARE` of MemTotal. */
    budgetBytes: number | null;
    meminfo?: () => MemInfo | null;
    floorBytes?: number;
    recheckMs?: number;
    /** How often the trees of admitted calls are measured (`SVC_MEMORY_SAMPLE_MS`); 0: never. */
    sampleMs?: number;
  }) {
    this.sampleMs = options.sampleMs ?? MEMORY_SAMPLE_MS;
    this.meminfo = options.meminfo ?? (() => readMemInfo());
    // Without /proc and without a set budget, nothing is known to bound: every node is admitted.
    this.#budget = options.budgetBytes ?? defaultMemoryBudgetBytes(this.meminfo);
    this.floor = options.floorBytes ?? MEMORY_AVAILABLE_FLOOR_BYTES;
    this.recheckMs = options.recheckMs ?? ADMISSION_RECHECK_MS;
  }

  /** How often the process trees of the calls it admits are measured (tree-memory.ts); 0: never. */
  readonly sampleMs: number;
  private readonly meminfo: () => MemInfo | null;
  private readonly floor: number;
  private readonly recheckMs: number;

  /** The budget in bytes (null: none could be set). */
  get budgetBytes(): number | null {
    return this.#budget;
  }

  /**
   * Resolves with the node's grant once its estimate fits; `onWait` is called when it has to wait.
   * Rejects (with the signal's reason) when `signal` aborts while it waits, and leaves the queue.
   */
  acquire(estimate: number, signal: AbortSignal, onWait?: () => void): Promise<MemoryGrant> {
    if (signal.aborted) return Promise.reject(new Error('cancelled while waiting for memory'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        estimate,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          const entry: Admitted = { estimate, measured: 0 };
          this.#admitted.add(entry);
          let released = false;
          resolve({
            measured: (bytes) => {
              entry.measured = bytes;
            },
            release: () => {
              if (released) return;
              released = true;
              this.#admitted.delete(entry);
              this.#dispatch();
            },
          });
        },
      };
      const onAbort = () => {
        const at = this.#queue.indexOf(waiter);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        this.#dispatch();
        reject(new Error('cancelled while waiting for memory'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#dispatch();
      if (this.#queue.includes(waiter)) onWait?.();
    });
  }

  /**
   * A place for background work that no run waits for (a worktree pool's refill; docs/decisions.md,
   * "Memory admission"): granted only when no node waits and `estimate` fits now — never queued,
   * so it never stands ahead of a node — and taken back the moment a node has to wait, when
   * `onYield` is called (the work stops; its place is already free). Null when it does not fit now.
   */
  tryAcquireYielding(estimate: number, onYield: () => void): MemoryGrant | null {
    if (this.#queue.length > 0 || !this.#fits(estimate)) return null;
    const entry: Admitted = { estimate, measured: 0, yieldPlace: onYield };
    this.#admitted.add(entry);
    return {
      measured: (bytes) => {
        entry.measured = bytes;
      },
      release: () => {
        if (this.#admitted.delete(entry)) this.#dispatch();
      },
    };
  }

  /** Whether `estimate` fits now beside the nodes admitted. */
  #fits(estimate: number): boolean {
    // Alone: a node is never blocked forever, whatever its size or the machine's state.
    if (this.#admitted.size === 0) return true;
    if (this.#budget !== null) {
      let total = 0;
      for (const node of this.#admitted) total += Math.max(node.estimate, node.measured);
      if (total + estimate > this.#budget) return false;
    }
    const info = this.meminfo();
    return info === null || info.availableBytes - estimate >= this.floor;
  }

  /** Grants the queue's head while it fits, in arrival order; looks again later while any still waits. */
  #dispatch(): void {
    while (this.#queue.length > 0 && this.#fits(this.#queue[0]!.estimate)) this.#queue.shift()!.grant();
    if (this.#queue.length > 0 && this.#yieldBackground()) return this.#dispatch();
    if (this.#queue.length > 0 && !this.#timer) {
      // Unref'd: a waiting node must never hold a finished CLI process open.
      this.#timer = setInterval(() => this.#dispatch(), this.recheckMs).unref();
    } else if (this.#queue.length === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** A node waits: background work gives its places back (told to stop); whether any did. */
  #yieldBackground(): boolean {
    const yielding = [...this.#admitted].filter((entry) => entry.yieldPlace);
    for (const entry of yielding) {
      this.#admitted.delete(entry);
      const told = entry.yieldPlace!;
      entry.yieldPlace = undefined;
      // Told after this dispatch: stopping the work must not re-enter the queue's walk.
      queueMicrotask(told);
    }
    return yielding.length > 0;
  }
}

/** Nothing is counted without a budget (a test's executor, a CLI without a server's budget): the grant holds no place. */
const UNCOUNTED: MemoryGrant = { measured() {}, release() {} };

/**
 * One call's place in the budget, taken when its caller is ready to start the process (`admit`),
 * not before: an agent asks once it holds an agent slot (agents/agent-slots.ts), so that while it
 * waits for the slot it holds no memory. `measured` and `release` before `admit` change nothing.
 */
export class PendingGrant {
  #grant: MemoryGrant | undefined;
  #released = false;

  constructor(
    private readonly admission: MemoryAdmission | undefined,
    private readonly estimate: number,
    private readonly signal: AbortSignal,
    /** Told `true` when the call has to wait for memory, then `false` once it is admitted. */
    private readonly onWait: (waiting: boolean) => void = () => {},
  ) {}

  /** Resolves once admitted; rejects when the signal aborts meanwhile (the call then never starts). */
  readonly admit = async (): Promise<void> => {
    if (this.#grant || this.#released) return;
    if (!this.admission) {
      this.#grant = UNCOUNTED;
      return;
    }
    let waited = false;
    const grant = await this.admission.acquire(this.estimate, this.signal, () => {
      waited = true;
      this.onWait(true);
    });
    if (waited) this.onWait(false);
    // Given up meanwhile (its caller failed before starting anything): the place goes back at once.
    if (this.#released) grant.release();
    else this.#grant = grant;
  };

  measured(bytes: number): void {
    this.#grant?.measured(bytes);
  }

  release(): void {
    this.#released = true;
    this.#grant?.release();
  }
}
