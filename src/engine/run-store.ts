import { join } from 'node:path';
import type { EventPublisher } from '../events/bus.js';
import type { AppendLog, Collection, PutOptions, Store } from '../store/index.js';
import type { RunEvent, RunEventFields, RunEventOf, RunEventType, RunStreamEvent } from './events.js';
import type { RunFilter } from './engine-deps.js';
import { MIN_RUN_PREFIX, newestFirst, pageOfRuns, pickRun, type RunPage } from './run-queries.js';
import { openRunSummaryIndex, type RunSummaryIndex } from './run-summaries.js';
import type { RunRecord } from './types.js';

/**
 * Runs and their events on the store: one record file per run (a state change costs the same
 * however many runs exist) and an append-only `events.jsonl` beside it. Every event gets the
 * run's next `seq` and a global `pos`, is persisted, and only then published — so a client that
 * reconnects with Last-Event-ID finds on disk everything it may have seen live.
 */
export class RunStore {
  #seq = new Map<string, number>();
  #seqLoading = new Map<string, Promise<void>>();
  /** Every run, newest first, kept between queries; a new run or a deletion re-sorts it. */
  #newestFirst: RunRecord[] | undefined;
  /** The per-workflow summaries of ended runs that benchmarks read (run-summaries.ts). */
  readonly summaries: RunSummaryIndex;

  private constructor(
    private readonly runs: Collection<RunRecord>,
    private readonly events: AppendLog<RunEvent>,
    private readonly store: Store,
    private readonly bus: EventPublisher<RunStreamEvent>,
  ) {
    this.summaries = openRunSummaryIndex(runs.all());
  }

  static async open(store: Store, bus: EventPublisher<RunStreamEvent>): Promise<RunStore> {
    return new RunStore(await store.collection<RunRecord>('runs', 'per-record'), store.log<RunEvent>('runs'), store, bus);
  }

  all(): RunRecord[] {
    return this.runs.all();
  }

  get(id: string): RunRecord | undefined {
    return this.runs.get(id);
  }

  find(predicate: (run: RunRecord) => boolean): RunRecord | undefined {
    return this.runs.find(predicate);
  }

  /** An exact id, or an unambiguous prefix of one (the CLI accepts short ids). */
  resolve(idOrPrefix: string): RunRecord {
    const exact = this.runs.get(idOrPrefix);
    return pickRun(idOrPrefix, exact, exact || idOrPrefix.length < MIN_RUN_PREFIX ? [] : this.runs.filter((run) => run.id.startsWith(idOrPrefix)));
  }

  /**
   * Writes the run's record. Lifecycle transitions write it durably (fsync); the executor's
   * per-round node progress passes `{ sync: false }` (docs/decisions.md, "Engine overhead").
   */
  save(run: RunRecord, options?: PutOptions): Promise<void> {
    run.updatedAt = new Date().toISOString();
    if (!this.runs.get(run.id)) this.#newestFirst = undefined;
    return this.runs.put(run, options);
  }

  async delete(run: RunRecord): Promise<void> {
    await this.runs.delete(run.id);
    this.#newestFirst = undefined;
    await this.summaries.remove(run.id);
    this.#seq.delete(run.id);
  }

  /**
   * A page of runs, newest first, with the number of matches and the matches per state (the status
   * filter aside): a query (filter, order, page, count) a database answers as one.
   */
  list(filter: RunFilter): RunPage {
    this.#newestFirst ??= newestFirst(this.runs.all());
    return pageOfRuns(this.#newestFirst, filter);
  }

  /** Every workflow with at least one run record, sorted. */
  async workflows(): Promise<string[]> {
    return [...new Set(this.runs.all().map((r) => r.workflow))].sort();
  }

  /**
   * Runs that may have events after `sinceMs` (unfinished, paused, or changed since): a query, so a
   * database implementation can answer it with an index instead of a scan.
   */
  async touchedSince(sinceMs: number, match: (run: RunRecord) => boolean): Promise<RunRecord[]> {
    return this.runs.filter((run) => match(run) && (run.finishedAt === null || run.status === 'paused' || Date.parse(run.updatedAt) >= sinceMs));
  }

  readEvents(runId: string): Promise<RunEvent[]> {
    return this.events.read(`${runId}/events`);
  }

  artifactsDir(runId: string): string {
    return this.store.dataDir('runs', runId, 'artifacts');
  }

  /** A run loaded from disk (paused, resumed, recovered) continues its numbering. */
  #loadSeq(runId: string): Promise<void> {
    let loading = this.#seqLoading.get(runId);
    if (!loading) {
      loading = this.readEvents(runId).then((events) => {
        if (!this.#seq.has(runId))
          this.#seq.set(
            runId,
            events.reduce((max, event) => Math.max(max, event.seq), 0),
          );
        this.#seqLoading.delete(runId);
      });
      this.#seqLoading.set(runId, loading);
    }
    return loading;
  }

  /**
   * Persists then publishes. Seq, pos and the append call happen in one synchronous step; appends
   * of one run are serialized, but appends of different runs finish in any order — so publishing
   * goes through one chain for all runs: an event is published only after every event with a lower
   * position. Streams can then trust that positions only grow.
   */
  async emit<T extends RunEventType>(run: RunRecord, type: T, fields: RunEventFields[T]): Promise<RunEventOf<T>> {
    if (!this.#seq.has(run.id)) await this.#loadSeq(run.id);
    const seq = this.#seq.get(run.id)! + 1;
    this.#seq.set(run.id, seq);
    const event = {
      type,
      at: new Date().toISOString(),
      runId: run.id,
      seq,
      pos: this.bus.nextPosition(),
      conversationId: run.conversationId,
      platformId: run.platformId,
      workflow: run.workflow,
      ...fields,
    } as RunEventOf<T>;
    const appended = this.events.append(`${run.id}/events`, event as RunEvent);
    this.bus.publishWhenPersisted(appended, event as RunEvent);
    await appended;
    return event;
  }

  /**
   * Where a running node's process-group leader is noted, so the next server can stop what a
   * crashed one left running. A small file of its own: rewriting (and fsyncing) the whole run
   * record for it would double the cost of every node.
   */
  processFile(runId: string, nodeId: string): string {
    return join(this.store.dataDir('runs', runId, 'processes'), `${nodeId}.json`);
  }
}
