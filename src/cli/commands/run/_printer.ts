import { refusalsNote, type RunView, type StreamEvent } from '../../../client/index.js';
import { indentTail, toleratedNote } from './_failures.js';
import { formatSize } from '../../../shared/size.js';
import { printableLine as line } from '../../../shared/printable.js';
import type { IO } from '../../io.js';
import { styler, type Styler } from '../../output.js';
import { createSpinner, type Spinner } from '../../spinner.js';
import { formatCost, formatMs, setupSourceNote, waitingText } from './_outcome.js';
import { showsToolCall, toolLine } from './_tools.js';

export interface PrinterOptions {
  /** Stream node output and agents' tool calls (prefixed by node id); refused calls show anyway. */
  verbose: boolean;
  /** Print nothing while following (`--json`, `--wait`). */
  quiet: boolean;
}

/**
 * Progress of a followed run. On a TTY: one spinner naming the nodes running now, and a line per
 * node as it ends; piped, or on a terminal of 0 or unknown width: plain lines, no spinner. The same printer serves live
 * streams (SSE) and the offline foreground mode (the in-process bus).
 */
export class RunPrinter {
  #running = new Map<string, number>();
  /** A running node's memory as its last `node_memory` event gave it, shown beside its time. */
  #memory = new Map<string, number>();
  #spinner: Spinner | undefined;
  #timer: NodeJS.Timeout | undefined;
  #paint: Styler | undefined;

  private constructor(
    private readonly io: IO,
    private readonly options: PrinterOptions,
  ) {}

  static async create(io: IO, options: PrinterOptions): Promise<RunPrinter> {
    const printer = new RunPrinter(io, options);
    printer.#paint = await styler(io);
    if (!options.quiet) {
      // A terminal that loses its width mid-run: from then on, a line per node started too.
      printer.#spinner = await createSpinner(io, {
        onGone: () => {
          printer.#spinner = undefined;
          clearInterval(printer.#timer);
          printer.#timer = undefined;
        },
      });
    }
    return printer;
  }

  #line(text: string): void {
    if (this.options.quiet) return;
    const spinning = this.#spinner?.isSpinning;
    if (spinning) this.#spinner!.stop();
    this.io.out(`${text}\n`);
    if (spinning) this.#spinner!.start();
  }

  #refreshSpinner(): void {
    if (!this.#spinner) return;
    if (this.#running.size === 0) {
      this.#spinner.stop();
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const names = [...this.#running.entries()].map(([id, since]) => {
      const bytes = this.#memory.get(id);
      return `${id} ${formatMs(Date.now() - since)}${bytes === undefined ? '' : ` ${formatSize(bytes)}`}`;
    });
    this.#spinner.text = `running ${names.join(', ')}`;
    if (!this.#spinner.isSpinning) this.#spinner.start();
    this.#timer ??= setInterval(() => this.#refreshSpinner(), 500);
  }

  /** Output of a node (or of the setup), each line prefixed with its id. */
  #output(id: string, chunk: string, truncated: boolean): void {
    const p = this.#paint!;
    const prefix = p.dim(`[${id}] `);
    const text = chunk.replace(/\n$/, '');
    if (text)
      this.#line(
        text
          .split('\n')
          .map((l) => prefix + l)
          .join('\n'),
      );
    // Events carry the first 64 KiB of the output; the node's log (the setup's record) has the rest.
    if (truncated) this.#line(`${prefix}${p.dim(`(the streamed output stops here; the rest is in ${id === 'setup' ? 'the run record' : `${id}.log`})`)}`);
  }

  handle(event: StreamEvent): void {
    const p = this.#paint!;
    switch (event.type) {
      case 'run_created':
        this.#line(p.dim(`run ${event.runId} of ${event.workflow} created`));
        break;
      case 'run_resumed':
        this.#line(p.dim(`run ${event.runId} resumed; completed nodes are skipped`));
        break;
      case 'setup_started':
        this.#running.set('setup', Date.now());
        if (!this.#spinner) this.#line('setup started');
        break;
      case 'setup_output':
        // Shown like a node's output, as the step `setup`.
        if (this.options.verbose && typeof event.text === 'string') this.#output('setup', event.text, event.truncated === true);
        break;
      case 'setup_finished':
        this.#running.delete('setup');
        // How the worktree was prepared says why the step took what it took (`setup` is the script itself).
        if (event.status === 'completed') this.#line(`${p.green('✔')} setup ${p.dim(`${formatMs(event.durationMs)}${setupSourceNote(event.source)}`)}`);
        else this.#line(`${p.red('✖')} setup ${event.error ?? event.status}`);
        break;
      case 'node_started':
        this.#running.set(event.nodeId, Date.now());
        if (!this.#spinner) this.#line(`${event.nodeId} started`);
        break;
      case 'node_waiting':
        // Only the wait is worth a line; getting the slot (or the memory) shows as the node's output and end.
        if (event.waitingFor) this.#line(`${p.yellow('…')} ${event.nodeId} waiting for ${event.waitingFor === 'memory' ? 'memory' : 'an agent slot'}`);
        break;
      case 'node_memory':
        this.#memory.set(event.nodeId, event.rssBytes);
        // On a terminal the spinner shows it; piped, --verbose gives it a line (a few seconds apart at most once per node).
        if (this.options.verbose && !this.#spinner)
          this.#line(`${p.dim(`[${event.nodeId}]`)} memory ${formatSize(event.rssBytes)} (peak ${formatSize(event.peakRssBytes)})`);
        break;
      case 'node_output':
        if (this.options.verbose && typeof event.text === 'string') this.#output(event.nodeId, event.text, event.truncated === true);
        break;
      case 'sandbox_denied':
        // Every refusal of the sandbox is shown: it is what an injected prompt tried.
        this.#line(`${p.dim(`[${event.nodeId}]`)} ${p.yellow('sandbox denied:')} ${event.kind} ${event.target} ${p.dim(`(${event.tool})`)}`);
        break;
      case 'agent_tool':
        if ('nodeId' in event && showsToolCall(event.status, this.options.verbose)) this.#line(`${p.dim(`[${event.nodeId}]`)} ${toolLine(p, event)}`);
        break;
      case 'node_completed':
        this.#running.delete(event.nodeId);
        this.#memory.delete(event.nodeId);
        this.#line(
          `${p.green('✔')} ${event.nodeId} ${p.dim(formatMs(event.durationMs))}${typeof event.costUsd === 'number' ? p.dim(` ${formatCost(event.costUsd)}`) : ''}`,
        );
        break;
      case 'node_failed':
        this.#running.delete(event.nodeId);
        this.#memory.delete(event.nodeId);
        // A tolerated failure (`continue_on_error`) is shown as a failure, marked, in the run's colour of a warning.
        this.#line(
          event.tolerated
            ? `${p.yellow('✖')} ${event.nodeId} ${event.error} ${p.dim('(tolerated: continue_on_error)')}`
            : `${p.red('✖')} ${event.nodeId} ${event.error}`,
        );
        // Its last lines say why; with --verbose they were streamed already.
        if (!this.options.verbose && event.logTail) this.#line(indentTail(event.logTail, p));
        break;
      case 'node_skipped':
        this.#line(`${p.yellow('↷')} ${event.nodeId} skipped: ${event.reason}`);
        break;
      case 'run_paused':
        this.#line(`${p.yellow('⏸')} paused at ${event.nodeId}: ${event.message}\n  approve: svc approve ${event.runId}   reject: svc reject ${event.runId}`);
        break;
      case 'run_waiting':
        this.#line(
          `${p.yellow('⏳')} waiting: ${waitingText(event.nodes)}${event.nodes.some((n) => n.event) ? `\n  signal: svc signal ${event.runId} <event> [--payload file]` : ''}`,
        );
        break;
      case 'run_woken':
        this.#line(
          `${p.green('⏵')} ${event.nodeId} ${event.by === 'time' ? 'waited its time' : event.by === 'signal' ? `signalled ${event.event}` : `timed out waiting for ${event.event}`}`,
        );
        break;
      case 'run_approved':
        this.#line(`${p.green('✔')} ${event.nodeId} approved${event.comment ? `: ${event.comment}` : ''}`);
        break;
      case 'run_rejected':
        this.#line(`${p.red('✖')} ${event.nodeId} rejected${event.reason ? `: ${event.reason}` : ''}`);
        break;
      case 'budget_warning':
        this.#line(
          event.reason === 'threshold'
            ? `${p.yellow('⚠')} budget: spent ${formatCost(event.spentUsd)} of the ${formatCost(event.capUsd)} cap (80% reached at ${event.nodeId})`
            : `${p.yellow('⚠')} budget: ${event.nodeId}'s agent reported no cost; the ${formatCost(event.capUsd)} cap cannot see its spend`,
        );
        break;
      case 'budget_exceeded':
        this.#line(
          `${p.red('✖')} budget exceeded: spent ${formatCost(event.spentUsd)} of the ${formatCost(event.capUsd)} cap (at ${event.nodeId}); running agents stopped, no further node starts`,
        );
        break;
      case 'auto_resume_scheduled':
        this.#line(`${p.yellow('↻')} usage limit: the server resumes this run at ${event.at} (svc cancel ${event.runId} calls it off)`);
        break;
      case 'auto_resume_cancelled':
        this.#line(`${p.yellow('↻')} auto-resume at ${event.at} called off (${event.reason})`);
        break;
      case 'run_merged':
        this.#line(
          event.alreadyLanded
            ? `${p.green('✔')} already landed in ${event.into}: ${event.commit}`
            : `${p.green('✔')} merged into ${event.into} (${event.strategy}): ${event.commit}`,
        );
        break;
      case 'queue_entered':
        this.#line(`${p.dim('⧗')} in the landing queue of ${event.target} (place ${event.position})`);
        break;
      case 'queue_verifying':
        this.#line(
          `${p.dim('⧗')} ${event.verify ? 'verifying' : 'landing'} ${event.commit} on ${event.target}${event.ahead?.length ? ` after ${event.ahead.join(', ')}` : ''}`,
        );
        break;
      case 'queue_landed':
        this.#line(`${p.green('✔')} landed on ${event.target} by the queue: ${event.commit}`);
        break;
      case 'queue_needs_rework':
        this.#line(`${p.red('✖')} not landed on ${event.target}: ${event.reason}${event.files?.length ? ` (${event.files.join(', ')})` : ''}`);
        break;
      case 'queue_paused':
        this.#line(`${p.yellow('‖')} landing queue of ${event.target} paused: ${event.reason}`);
        break;
      case 'pr_updated':
        this.#line(
          p.dim(
            `pull request #${event.number} ${event.state}${event.commit ? ` at ${event.commit.slice(0, 10)}` : ''}: ${
              Object.entries(event.checks)
                .map(([state, count]) => `${count} ${state}`)
                .join(', ') || 'no checks'
            }${event.lookFailed ? ' (the last look failed)' : ''}`,
          ),
        );
        break;
      case 'pr_check_failed':
        this.#line(
          // A check's name, its step and the CI's words are GitHub's: printed as one clean line (shared/printable.ts).
          `${p.red('✖')} pull request #${event.number}: check ${line(event.check)} failed${event.infrastructure ? ` (the CI's own: ${line(event.infrastructure)})` : event.failingStep ? ` at ${line(event.failingStep)}` : ''}`,
        );
        break;
      case 'pr_changes_requested':
        this.#line(`${p.yellow('✎')} pull request #${event.number}: changes requested (${event.comments.length} comments)`);
        break;
      case 'reaction_started':
        this.#line(`${p.dim('↻')} pull request #${event.number}: ${line(event.workflow)} started as ${event.followOnRunId}`);
        break;
      case 'reaction_finished':
        this.#line(
          `${event.outcome === 'pushed' ? p.green('✔') : p.red('✖')} pull request #${event.number}: ${event.followOnRunId} ${event.outcome}${event.commit ? ` ${line(event.commit)}` : ''}`,
        );
        break;
      case 'needs_human':
        this.#line(`${p.yellow('!')} pull request #${event.number} needs a person: ${line(event.reason)}`);
        break;
      case 'pr_resumed':
        this.#line(`${p.dim('↻')} pull request #${event.number} resumed by ${line(event.by)}: at most ${event.maxFixCycles} more reactions`);
        break;
      case 'pr_merged':
        this.#line(`${p.green('✔')} pull request #${event.number} ${event.merged ? 'merged' : 'closed'}`);
        break;
    }
    this.#refreshSpinner();
  }

  /** The closing summary once the run settled; printed even when progress was quiet (`--wait`). */
  finish(run: RunView): void {
    this.#running.clear();
    this.#refreshSpinner();
    const p = this.#paint!;
    const duration = run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '';
    const cost = run.costUsd === null ? '' : ` ${formatCost(run.costUsd)}`;
    // A run whose agent was refused tools says so on its last line, never as a plain success; so
    // does a completed run that tolerated failures.
    const denied = [refusalsNote(run), toleratedNote(run)].filter(Boolean).join('; ');
    const colour =
      run.status === 'completed' && !denied ? p.green : run.status === 'paused' || run.status === 'waiting' || run.status === 'completed' ? p.yellow : p.red;
    this.io.out(
      `${colour(run.status)} ${run.workflow} ${run.id}${duration ? ` in ${duration}` : ''}${cost}${run.error ? `: ${run.error}` : ''}${denied ? ` — ${denied}` : ''}\n`,
    );
  }

  close(): void {
    clearInterval(this.#timer);
    this.#spinner?.stop();
  }
}
