import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventPublisher } from '../../events/index.js';
import { inOrderByKey } from '../../shared/in-order-by-key.js';
import type { PutOptions, Store } from '../../store/index.js';
import {
  isSettlingEvent,
  LANDING_EVENT_TYPES,
  type RunEvent,
  type RunEventFields,
  type RunEventOf,
  type RunEventType,
  type RunStreamEvent,
} from '../model/events.js';
import { openFileRunRepository, type NewRunEvent, type RunEventFilter, type RunRepository, type RunStorage } from './run-repository.js';
import type { RunFilter, RunPage } from './run-queries.js';
import { openRunSummaryIndex, type RunSummaryIndex } from './run-summaries.js';
import { freezeRun } from '../model/run-snapshot.js';
import type { RunRecord, RunStatus } from '../model/types.js';

/** The file store's runs: RunRepository on `runs/<id>/…`, summaries indexed in memory from the records. */
export async function openFileRunStorage(store: Store, nextPosition: () => number): Promise<RunStorage> {
  const repository = await openFileRunRepository(store, nextPosition);
  const records = await store.collection<RunRecord>('runs', 'per-record');
  return { repository, summaries: openRunSummaryIndex(records.all()) };
}

/**
 * Runs and their events, for the engine: every read and write goes through the async RunRepository
 * (docs/decisions.md, "PostgreSQL store"). A run record is an immutable snapshot (docs/decisions.md, "Run snapshots"): `save` writes a new one and resolves to it, every read returns the stored one,
 * frozen, and no object is shared for changing. Every event gets the run's next `seq` and a stream
 * position from the repository, is persisted, and only then published — so a client that
 * reconnects with Last-Event-ID finds in the store everything it may have seen live.
 */
export class RunStore {
  #seq = new Map<string, number>();
  #seqLoading = new Map<string, Promise<void>>();
  /** The writes of one run land in the order they were asked (a later snapshot never under an earlier one). */
  #inOrder = inOrderByKey();

  private constructor(
    private readonly repository: RunRepository,
    /** The per-workflow summaries of ended runs that benchmarks read (run-summaries.ts). */
    readonly summaries: RunSummaryIndex,
    private readonly store: Store,
    private readonly bus: EventPublisher<RunStreamEvent>,
  ) {}

  static async open(store: Store, bus: EventPublisher<RunStreamEvent>, storage?: RunStorage): Promise<RunStore> {
    const { repository, summaries } = storage ?? (await openFileRunStorage(store, () => bus.nextPosition()));
    return new RunStore(repository, summaries, store, bus);
  }

  /** Runs in these states, oldest first (what a starting server recovers). */
  async withStatus(statuses: readonly RunStatus[]): Promise<RunRecord[]> {
    return (await this.repository.withStatus(statuses)).map(freezeRun);
  }

  /** Runs in these states whose wake-up time has come by `at`, earliest first (wake-ups.ts). */
  async dueWakeUps(statuses: readonly RunStatus[], at: string): Promise<RunRecord[]> {
    return (await this.repository.dueWakeUps(statuses, at)).map(freezeRun);
  }

  /** The earliest wake-up time of the runs in these states. */
  nextWakeUp(statuses: readonly RunStatus[]): Promise<string | undefined> {
    return this.repository.nextWakeUp(statuses);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const run = await this.repository.get(id);
    return run && freezeRun(run);
  }

  /** An exact id, or an unambiguous prefix of one (the CLI accepts short ids). */
  async resolve(idOrPrefix: string): Promise<RunRecord> {
    return freezeRun(await this.repository.resolve(idOrPrefix));
  }

  async byWorker(platformId: string): Promise<RunRecord | undefined> {
    const found = await this.repository.byWorker(platformId);
    return found && freezeRun(found);
  }

  async resumable(workflow: string, conversationId: string): Promise<RunRecord | undefined> {
    const found = await this.repository.resumable(workflow, conversationId);
    return found && freezeRun(found);
  }

  /**
   * Writes `run`, stamped with the time, as the run's new snapshot and resolves to it. Lifecycle
   * transitions write it durably (fsync); the executor's per-round node progress passes
   * `{ sync: false }` (docs/decisions.md, "Engine overhead"). With `expected` (the state the change
   * was decided on), a compare-and-set: written only while the stored run is in that state, or with
   * 'absent' only as a new run; resolves to undefined when that did not hold (another change won).
   */
  save(run: RunRecord, options?: PutOptions, expected?: RunStatus | 'absent'): Promise<RunRecord | undefined> {
    const snapshot = freezeRun({ ...run, updatedAt: new Date().toISOString() });
    return this.#inOrder(run.id, async () => ((await this.repository.save(snapshot, options, expected)) ? snapshot : undefined));
  }

  /** Removes the run as it was read (its state unchanged since: another server may have resumed it); resolves to whether it did. */
  async delete(run: RunRecord): Promise<boolean> {
    if (!(await this.repository.delete(run.id, run.status))) return false;
    // Its artifacts and process notes are files whatever the store (the file store's record folder is the same one).
    await rm(this.store.dataDir('runs', run.id), { recursive: true, force: true });
    await this.summaries.remove(run.id);
    this.#seq.delete(run.id);
    return true;
  }

  /** A page of runs, newest first, with the number of matches and the matches per state (the status filter aside). */
  async list(filter: RunFilter): Promise<RunPage> {
    const page = await this.repository.list(filter);
    return { ...page, runs: page.runs.map(freezeRun) };
  }

  /** Clears the run's wake-up only while it still holds `at` (compare-and-set); resolves to whether it did. */
  claimAutoResume(runId: string, at: string): Promise<boolean> {
    return this.repository.claimAutoResume(runId, at);
  }

  /** Every workflow with at least one run record, sorted. */
  workflows(): Promise<string[]> {
    return this.repository.workflows();
  }

  /** Events after stream position `after` of the runs `filter` names, in position order (Last-Event-ID replay). */
  eventsAfter(after: number, filter: RunEventFilter): Promise<RunEvent[]> {
    return this.repository.eventsAfter(after, filter);
  }

  readEvents(runId: string): Promise<RunEvent[]> {
    return this.repository.events(runId);
  }

  artifactsDir(runId: string): string {
    return this.store.dataDir('runs', runId, 'artifacts');
  }

  /** A run loaded from the store (paused, resumed, recovered) continues its numbering. */
  #loadSeq(runId: string): Promise<void> {
    let loading = this.#seqLoading.get(runId);
    if (!loading) {
      loading = this.repository.lastSeq(runId).then((last) => {
        if (!this.#seq.has(runId)) this.#seq.set(runId, last);
        this.#seqLoading.delete(runId);
      });
      this.#seqLoading.set(runId, loading);
    }
    return loading;
  }

  /**
   * Persists then publishes. Seq is taken, and the append asked, in one synchronous step; the
   * repository gives positions in the order appends are asked, and the bus publishes each event
   * only after every event asked before it — so streams can trust that positions only grow.
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
      conversationId: run.conversationId,
      platformId: run.platformId,
      workflow: run.workflow,
      ...fields,
    } as NewRunEvent;
    const stored = this.repository.appendEvent(event);
    this.bus.publishWhenStored(stored);
    // A run that settles may next be changed by another server (an approval, a resume): its
    // numbering is read again then. Once this last event is stored every earlier one is (appends
    // land in the order asked), so the store's count is right; the entry also goes for good.
    // So is a landing event: the process landing a settled run is not always the one that ran it.
    if (isSettlingEvent(event) || (LANDING_EVENT_TYPES as readonly string[]).includes(type)) {
      void stored.then(
        () => this.#seq.get(run.id) === seq && this.#seq.delete(run.id),
        () => {},
      );
    }
    return (await stored) as RunEventOf<T>;
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
