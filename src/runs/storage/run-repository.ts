/**
 * The run records and run events as an async, query-shaped repository: the shape the PostgreSQL
 * store implements (postgres-run-repository.ts), and the file implementation here reads and writes
 * the layout runs have always had (`runs/<id>/record.json`, `runs/<id>/events.jsonl`). The engine
 * reads and writes runs only through this interface (run-store.ts; docs/decisions.md, "PostgreSQL store").
 */

import type { Collection, PutOptions, Store } from '../../store/index.js';
import type { RunEvent } from '../model/events.js';
import { newestFirst, pageOfRuns, pickRun, runIdPrefix, type RunFilter, type RunPage } from './run-queries.js';
import type { RunSummaryIndex } from './run-summaries.js';
import { inStream, type RunEventFilter } from '../../events/index.js';
import type { RunRecord, RunStatus } from '../model/types.js';

/** An event as emitted, before the store gives it its stream position. */
export type NewRunEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'pos'> : never) : never;

export type { RunEventFilter } from '../../events/index.js';

/** The auto-resume claim on the run records (auto-resume.ts); the wake-up itself is the run's `wakeAt`, found by `dueWakeUps`. */
export interface AutoResumeClaims {
  /**
   * Clears the run's `autoResumeAt` and `wakeAt` only while it still holds `at` and the run is
   * failed (a compare-and-set: of several servers, or a timer and a cancel, one wins); resolves to whether it did.
   */
  claimAutoResume(runId: string, at: string): Promise<boolean>;
}

export interface RunRepository extends AutoResumeClaims {
  /**
   * Inserts or replaces the run's record; with `expected`, only while the stored run is in that
   * state (a change of state made by one server at a time: a deleted run is not brought back), or,
   * with 'absent', only a new run; resolves to false when that did not hold.
   */
  save(run: RunRecord, options?: PutOptions, expected?: RunStatus | 'absent'): Promise<boolean>;
  get(id: string): Promise<RunRecord | undefined>;
  /** An exact id, or a unique prefix with at least RUN_IDS.minChars characters after `run_`; else 400 `ambiguous_run_id` or 404 `run_not_found`. */
  resolve(idOrPrefix: string): Promise<RunRecord>;
  /** The run whose worker conversation this is. */
  byWorker(platformId: string): Promise<RunRecord | undefined>;
  /** The newest failed run of this workflow and conversation marked by resume, to continue. */
  resumable(workflow: string, conversationId: string): Promise<RunRecord | undefined>;
  /** Runs in these states, oldest first (what a starting server recovers). */
  withStatus(statuses: readonly RunStatus[]): Promise<RunRecord[]>;
  /**
   * Runs in these states whose `wakeAt` is at or before `at` (ISO), earliest wake-up first: the
   * wake-ups now due (wake-ups.ts). The states say which kinds of wake-up are asked
   * for, so a `wakeAt` left on a run in another state is never due.
   */
  dueWakeUps(statuses: readonly RunStatus[], at: string): Promise<RunRecord[]>;
  /** The earliest `wakeAt` of the runs in these states; undefined when none has one. */
  nextWakeUp(statuses: readonly RunStatus[]): Promise<string | undefined>;
  /** Newest first, one page, with the total and the counts per state (the status filter aside). */
  list(filter: RunFilter): Promise<RunPage>;
  /** Every workflow with at least one run, sorted. */
  workflows(): Promise<string[]>;
  /**
   * Removes the run and its events; with `expected`, only while the stored run is in that state (a
   * run another server resumed meanwhile stays); resolves to whether it did.
   */
  delete(id: string, expected?: RunStatus): Promise<boolean>;

  /** Persists an event, giving it its stream position; resolves to the event as stored. */
  appendEvent(event: NewRunEvent): Promise<RunEvent>;
  /** A run's events in `seq` order. */
  events(runId: string): Promise<RunEvent[]>;
  /** The highest `seq` of a run's events; 0 when it has none. */
  lastSeq(runId: string): Promise<number>;
  /** Events after stream position `after`, of the runs `filter` names, in position order (Last-Event-ID replay). */
  eventsAfter(after: number, filter: RunEventFilter): Promise<RunEvent[]>;
}

/** Where runs are kept: the file store's layout, or another implementation of the same repositories (PostgreSQL). */
export interface RunStorage {
  repository: RunRepository;
  summaries: RunSummaryIndex;
}

/** Code-unit order, as a database orders ids and ISO times whatever its collation. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The embedded implementation, on the collection and logs RunStore writes. Positions come from
 * `nextPosition` (the event bus's clock: docs/decisions.md, "Streams"), taken when the append is asked.
 */
export async function openFileRunRepository(store: Store, nextPosition: () => number): Promise<RunRepository> {
  const runs = await store.collection<RunRecord>('runs', 'per-record');
  const log = store.log<RunEvent>('runs');
  const events = (runId: string) => log.read(`${runId}/events`);
  /** Every run, newest first, kept between queries; a new run or a deletion re-sorts it. */
  let sorted: RunRecord[] | undefined;
  /** A run written again takes its old record's place (ids do not change, nor does their order). */
  const replaceSorted = (run: RunRecord) => {
    if (!sorted) return;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]!.id > run.id) low = middle + 1;
      else high = middle;
    }
    if (sorted[low]?.id === run.id) sorted[low] = run;
    else sorted = undefined;
  };
  return {
    // A compare-and-set as on PostgreSQL: checked and put in one synchronous step (the collection
    // holds its records in memory, and this is the only writer of them).
    save: async (run, options, expected) => {
      const stored = runs.get(run.id);
      if (expected === 'absent' ? stored !== undefined : expected !== undefined && stored?.status !== expected) return false;
      if (stored) replaceSorted(run);
      else sorted = undefined;
      await runs.put(run, options);
      return true;
    },
    get: async (id) => runs.get(id),
    resolve: async (idOrPrefix) => {
      const exact = runs.get(idOrPrefix);
      const prefix = exact ? undefined : runIdPrefix(idOrPrefix);
      return pickRun(idOrPrefix, exact, prefix === undefined ? [] : runs.filter((run) => run.id.startsWith(prefix)));
    },
    byWorker: async (platformId) => runs.find((run) => run.platformId === platformId),
    resumable: async (workflow, conversationId) =>
      newestFirst(runs.filter((r) => r.resumePending && r.status === 'failed' && r.workflow === workflow && r.conversationId === conversationId))[0],
    withStatus: async (statuses) => runs.filter((run) => statuses.includes(run.status)).sort((a, b) => byText(a.createdAt, b.createdAt) || byText(a.id, b.id)),
    dueWakeUps: async (statuses, at) =>
      runs
        .filter((run) => statuses.includes(run.status) && typeof run.wakeAt === 'string' && run.wakeAt <= at)
        .sort((a, b) => byText(a.wakeAt!, b.wakeAt!) || byText(a.id, b.id)),
    nextWakeUp: async (statuses) =>
      runs
        .filter((run) => statuses.includes(run.status) && typeof run.wakeAt === 'string')
        .map((run) => run.wakeAt!)
        .sort(byText)[0],
    list: async (filter) => pageOfRuns((sorted ??= newestFirst(runs.all())), filter),
    workflows: async () => [...new Set(runs.all().map((r) => r.workflow))].sort(),
    async delete(id, expected) {
      if (expected !== undefined && runs.get(id)?.status !== expected) return false;
      const existed = await runs.delete(id);
      sorted = undefined;
      await log.remove(`${id}/events`);
      return existed;
    },
    async appendEvent(fields) {
      const event = { ...fields, pos: nextPosition() } as RunEvent;
      await log.append(`${event.runId}/events`, event);
      return event;
    },
    events,
    ...fileAutoResumeClaims(runs),
    lastSeq: async (runId) => (await events(runId)).reduce((max, event) => Math.max(max, event.seq), 0),
    async eventsAfter(after, filter) {
      // A run that finished well before `after` (positions are microseconds of wall time) cannot have any.
      const sinceMs = after / 1000 - 1000;
      const touched = runs.filter(
        (run) =>
          inStream(run, filter) && (run.finishedAt === null || run.status === 'paused' || run.status === 'waiting' || Date.parse(run.updatedAt) >= sinceMs),
      );
      const found: RunEvent[] = [];
      for (const run of touched) for (const event of await events(run.id)) if (event.pos > after) found.push(event);
      return found.sort((a, b) => a.pos - b.pos);
    },
  };
}

/** The claim on the file store: one server per home, so a plain write after the check. */
function fileAutoResumeClaims(runs: Collection<RunRecord>): AutoResumeClaims {
  return {
    async claimAutoResume(runId, at) {
      const run = runs.get(runId);
      if (run?.status !== 'failed' || run.autoResumeAt !== at) return false;
      await runs.put({ ...run, autoResumeAt: null, wakeAt: null, updatedAt: new Date().toISOString() });
      return true;
    },
  };
}
