import type { RunRecord } from '../model/types.js';

/**
 * The per-workflow index of run summaries that benchmarks read (docs/decisions.md, "Benchmarks"):
 * what a query needs of an ended run — its wall time, cost, and the time and cost of each node it
 * executed — kept newest first per workflow, so a query reads at most `limit` summaries whatever
 * the history, and never an event log.
 */

export interface NodeSummary {
  id: string;
  durationMs: number;
  costUsd: number | null;
  /**
   * Its time was waiting, not work: for a person at an approval gate (`approval`), or for a time or
   * a signal (`wait`). Absent for nodes that ran something, and in summaries written before it.
   */
  waits?: 'approval' | 'wait';
  /**
   * Its process tree's peak resident memory, every attempt's (docs/decisions.md, "What a run costs
   * the machine"); absent where nothing was measured (no process, no /proc, summaries written before it).
   */
  peakRssBytes?: number;
}

export interface RunSummary {
  runId: string;
  workflow: string;
  /**
   * The workspace the run executed on; absent for a run on none (its cwd). A node's memory history
   * is kept per workflow and workspace (`nodePeakHistory`): the same workflow on another repository
   * runs another test suite.
   */
  workspaceId?: string;
  status: 'completed' | 'failed';
  /** The version the run last executed (docs/decisions.md, "Versions"); absent for runs recorded before versions. */
  definitionHash?: string;
  createdAt?: string;
  finishedAt: string;
  durationMs: number;
  costUsd: number | null;
  /** Executed nodes only: skipped, cancelled and never-started nodes are not executions. */
  nodes: NodeSummary[];
  /** The part of `durationMs` some approval gate or wait node was open (their spans joined, overlaps once). */
  waitedMs?: number;
}

/** The statuses a run summary is kept for: the runs benchmarks measure. */
const MEASURED = new Set(['completed', 'failed']);

/** One version's runs among those a benchmark measures (`group=version`): their wall times and what they cost. */
export interface VersionRuns {
  definitionHash: string;
  /** When the earliest of these runs was created. */
  firstRunAt: string;
  /** Wall times, ascending. */
  durationsMs: number[];
  usd: number;
  /**
   * Each node's peak memory in these runs, ascending, for the nodes that have one (node order: first
   * seen in the newest run): is the edit's test node hungrier than before?
   */
  nodePeaksBytes: Array<{ id: string; peaksBytes: number[] }>;
}

/**
 * A run's summary, or undefined while it is not completed or failed. A node restored by resume
 * keeps the time of the pass that executed it: it counts once, as that execution.
 */
export function summarizeRun(run: RunRecord): RunSummary | undefined {
  // A workflow test's agents answered from a fixture in no time and for nothing: not a measurement.
  if (!MEASURED.has(run.status) || !run.finishedAt || run.trigger === 'test') return undefined;
  const start = run.startedAt ?? run.createdAt;
  const nodes: NodeSummary[] = [];
  const waiting = waitingNodes(run.definition);
  const spans: Array<[number, number]> = [];
  for (const [id, state] of Object.entries(run.nodes)) {
    if ((state.status !== 'completed' && state.status !== 'failed') || state.startedAt === null) continue;
    const durationMs = state.durationMs ?? (state.finishedAt ? Date.parse(state.finishedAt) - Date.parse(state.startedAt) : null);
    if (durationMs === null || !Number.isFinite(durationMs)) continue;
    const waits = waiting.get(id);
    nodes.push({
      id,
      durationMs: Math.max(0, durationMs),
      costUsd: state.costUsd,
      ...(waits ? { waits } : {}),
      ...(typeof state.peakRssBytes === 'number' ? { peakRssBytes: state.peakRssBytes } : {}),
    });
    const from = Date.parse(state.startedAt);
    if (waits && Number.isFinite(from)) spans.push([from, from + Math.max(0, durationMs)]);
  }
  return {
    runId: run.id,
    workflow: run.workflow,
    ...(run.workspaceId ? { workspaceId: run.workspaceId } : {}),
    status: run.status as RunSummary['status'],
    ...(run.definitionHash ? { definitionHash: run.definitionHash } : {}),
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    durationMs: Math.max(0, Date.parse(run.finishedAt) - Date.parse(start)),
    costUsd: run.costUsd,
    nodes,
    waitedMs: joinedLength(spans),
  };
}

/**
 * The nodes of a definition snapshot whose time is waiting (approval gates, wait nodes), read from
 * the definition as written: no validation, since the index is built from every record at open.
 */
function waitingNodes(definition: unknown): Map<string, 'approval' | 'wait'> {
  const nodes = (definition as { nodes?: unknown } | null)?.nodes;
  const kinds = new Map<string, 'approval' | 'wait'>();
  if (!Array.isArray(nodes)) return kinds;
  for (const node of nodes as Array<Record<string, unknown> | null>) {
    if (typeof node?.id !== 'string') continue;
    if (node.approval !== undefined) kinds.set(node.id, 'approval');
    else if (node.wait !== undefined) kinds.set(node.id, 'wait');
  }
  return kinds;
}

/** The length of the union of spans: two gates open at once count once. */
function joinedLength(spans: Array<[number, number]>): number {
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of spans.sort((a, b) => a[0] - b[0])) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** Whose memory history: one node of one workflow, on one workspace (null: runs on none). */
export interface NodePeakQuery {
  workflow: string;
  workspaceId: string | null;
  nodeId: string;
  /** How many of the newest ended runs to look in (not how many peaks: a node may not run every time). */
  runs: number;
}

export interface RecentQuery {
  /** Only runs that finished at or after this time (epoch ms). */
  sinceMs?: number;
  limit: number;
}

/** The async, query-shaped repository a database implementation can take the place of. */
export interface RunSummaryIndex {
  /** Writes or replaces the run's summary; a run that is not completed or failed is removed. */
  update(run: RunRecord): Promise<void>;
  remove(runId: string): Promise<void>;
  /** Newest first (by `finishedAt`), at most `limit`. */
  recent(workflow: string, query: RecentQuery): Promise<RunSummary[]>;
  /**
   * The runs `recent` answers, grouped by the version they executed, the newest version (by its
   * earliest run) first; runs without a version are left out.
   */
  versions(workflow: string, query: RecentQuery): Promise<VersionRuns[]>;
  /**
   * The measured peaks (`peakRssBytes`) of one node in the newest `runs` ended runs of its workflow
   * on that workspace, newest run first: what a node's memory estimate is made of (docs/decisions.md,
   * "Memory admission"). A run where the node did not execute, or was not measured, gives none.
   */
  nodePeakHistory(query: NodePeakQuery): Promise<number[]>;
}

/** Groups summaries by version, newest version first (the file store's answer; PostgreSQL groups in SQL). */
export function groupByVersion(summaries: readonly RunSummary[]): VersionRuns[] {
  const groups = new Map<string, VersionRuns>();
  for (const summary of summaries) {
    if (!summary.definitionHash) continue;
    const createdAt = summary.createdAt ?? summary.finishedAt;
    const group = groups.get(summary.definitionHash) ?? {
      definitionHash: summary.definitionHash,
      firstRunAt: createdAt,
      durationsMs: [],
      usd: 0,
      nodePeaksBytes: [],
    };
    groups.set(summary.definitionHash, group);
    group.durationsMs.push(summary.durationMs);
    group.usd += summary.costUsd ?? 0;
    if (createdAt < group.firstRunAt) group.firstRunAt = createdAt;
  }
  for (const group of groups.values()) group.durationsMs.sort((a, b) => a - b);
  for (const group of groups.values()) group.nodePeaksBytes = nodePeaks(summaries.filter((s) => s.definitionHash === group.definitionHash));
  const newer = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  return [...groups.values()].sort((a, b) => newer(a.firstRunAt, b.firstRunAt) || newer(a.definitionHash, b.definitionHash));
}

/** The measured peaks of each node of these summaries (newest first), ascending; nodes in the order the newest run has them. */
export function nodePeaks(summaries: ReadonlyArray<Pick<RunSummary, 'nodes'>>): VersionRuns['nodePeaksBytes'] {
  const peaks = new Map<string, number[]>();
  for (const summary of summaries) {
    for (const node of summary.nodes) {
      if (typeof node.peakRssBytes !== 'number') continue;
      const list = peaks.get(node.id) ?? [];
      peaks.set(node.id, list);
      list.push(node.peakRssBytes);
    }
  }
  return [...peaks].map(([id, peaksBytes]) => ({ id, peaksBytes: peaksBytes.sort((a, b) => a - b) }));
}

/**
 * The embedded implementation: summaries kept in memory per workflow, sorted by `finishedAt`, built
 * at open from the run records (the records are the source of truth, so there is nothing to
 * migrate: runs ended before the index existed are indexed the same way) and kept current by the
 * lifecycle's transitions. A query walks back from the newest and stops after `limit`.
 */
export function openRunSummaryIndex(records: Iterable<RunRecord>): RunSummaryIndex {
  /** Oldest first per workflow, so the common case (a run just ended) is a push. */
  const byWorkflow = new Map<string, RunSummary[]>();
  const workflowOf = new Map<string, string>();

  const drop = (runId: string) => {
    const workflow = workflowOf.get(runId);
    if (workflow === undefined) return;
    workflowOf.delete(runId);
    const list = byWorkflow.get(workflow)!;
    const at = list.findLastIndex((s) => s.runId === runId);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) byWorkflow.delete(workflow);
  };
  const insert = (summary: RunSummary) => {
    drop(summary.runId);
    const list = byWorkflow.get(summary.workflow) ?? [];
    byWorkflow.set(summary.workflow, list);
    let at = list.length;
    while (at > 0 && list[at - 1]!.finishedAt > summary.finishedAt) at--;
    list.splice(at, 0, summary);
    workflowOf.set(summary.runId, summary.workflow);
  };

  // Sorted once, then appended: inserting 10,000 records in directory order one by one would be quadratic.
  const initial: RunSummary[] = [];
  for (const run of records) {
    const summary = summarizeRun(run);
    if (summary) initial.push(summary);
  }
  initial.sort((a, b) => (a.finishedAt < b.finishedAt ? -1 : a.finishedAt > b.finishedAt ? 1 : 0));
  for (const summary of initial) insert(summary);

  const index: RunSummaryIndex = {
    async update(run) {
      const summary = summarizeRun(run);
      if (summary) insert(summary);
      else drop(run.id);
    },
    async remove(runId) {
      drop(runId);
    },
    versions: async (workflow, query) => groupByVersion(await index.recent(workflow, query)),
    async nodePeakHistory({ workflow, workspaceId, nodeId, runs }) {
      const list = byWorkflow.get(workflow) ?? [];
      const peaks: number[] = [];
      let seen = 0;
      for (let i = list.length - 1; i >= 0 && seen < runs; i--) {
        const summary = list[i]!;
        if ((summary.workspaceId ?? null) !== workspaceId) continue;
        seen++;
        const peak = summary.nodes.find((node) => node.id === nodeId)?.peakRssBytes;
        if (typeof peak === 'number') peaks.push(peak);
      }
      return peaks;
    },
    async recent(workflow, { sinceMs, limit }) {
      const list = byWorkflow.get(workflow) ?? [];
      const found: RunSummary[] = [];
      for (let i = list.length - 1; i >= 0 && found.length < limit; i--) {
        const summary = list[i]!;
        if (sinceMs !== undefined && Date.parse(summary.finishedAt) < sinceMs) break;
        found.push(summary);
      }
      return found;
    },
  };
  return index;
}
