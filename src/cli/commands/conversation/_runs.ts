import type { RunView, SvcClient } from '../../../client/index.js';
import type { IO } from '../../io.js';
import { followRun, waitsForServe } from '../run/_follow.js';
import { RunPrinter } from '../run/_printer.js';

export interface ChatRunsOptions {
  /**
   * Stop following at a durable wait as well as at an outcome. Piped, the chat holds the next line
   * until the run settles, and a wait can last hours; in process nothing would continue it anyway
   * (only a server continues a waiting run, docs/decisions.md, "Waits and signals").
   */
  untilWaiting: boolean;
  /** The run executes in this process (no server): a wait is then said as `svc run` says it. */
  inProcess: boolean;
}

/**
 * The runs a chat started with `/run`, followed live to their outcome with the code `svc run` and
 * `svc watch` follow a run with (`followRun` over the client's event stream, `RunPrinter`'s lines),
 * so the chat shows what the terminal would: each node as it ends, a failed node's last lines, a
 * pause at a gate with how to approve it, then the run's last line. Everything is handed to
 * `print`, which decides when it may reach the screen (the chat's prompt may be open).
 */
export class ChatRuns {
  readonly #stop = new AbortController();
  readonly #following = new Set<Promise<unknown>>();

  constructor(
    private readonly client: SvcClient,
    private readonly io: IO,
    private readonly print: (text: string) => void,
    private readonly options: ChatRunsOptions,
  ) {}

  /** Follows one run until it settles: its final record, or undefined when the follow was stopped or lost (said). */
  follow(runId: string): Promise<RunView | undefined> {
    const following = this.#follow(runId);
    this.#following.add(following);
    void following.finally(() => this.#following.delete(following));
    return following;
  }

  async #follow(runId: string): Promise<RunView | undefined> {
    // No spinner: the chat's own prompt owns the terminal's last lines, and a spinner would redraw over it.
    const sink: IO = { ...this.io, canSpin: false, out: this.print, err: this.print };
    const printer = await RunPrinter.create(sink, { verbose: false, quiet: false });
    const signal = this.#stop.signal;
    try {
      const run = await followRun(this.client, runId, (event) => printer.handle(event), 0, { untilWaiting: this.options.untilWaiting, signal });
      if (signal.aborted) return undefined;
      printer.close();
      printer.finish(run);
      if (run.status === 'waiting') this.print(this.options.inProcess ? waitsForServe(run) : waitsNote(run));
      return run;
    } catch (error) {
      this.print(`svc: stopped following run ${runId}: ${(error as Error).message}\n`);
      return undefined;
    } finally {
      printer.close();
    }
  }

  /** Resolves when every run followed so far settled (or its follow ended). */
  async settled(): Promise<void> {
    while (this.#following.size > 0) await Promise.allSettled([...this.#following]);
  }

  /** Leaving the chat: stop following (the runs go on; their outcomes are posted in the conversation). */
  stop(): void {
    this.#stop.abort();
  }
}

/** A piped chat stops at a durable wait; the server carries on and posts the run's outcome in the conversation. */
const waitsNote = (run: Pick<RunView, 'id' | 'wakeAt'>) =>
  `svc: run ${run.id} waits${run.wakeAt ? ` until ${run.wakeAt}` : ' for a signal'}; the server continues it and posts its outcome in this conversation (\`svc watch ${run.id}\` follows it).\n`;
