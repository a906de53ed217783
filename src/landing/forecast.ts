/**
 * The conflict forecast of a workspace (docs/decisions.md, "Conflict forecast"): for each run
 * branch not yet landed, whether it would conflict with the target branch and with each other
 * such branch, and which files both change — computed when asked, from the refs as they are now,
 * with every git answer memoised by commit ids (conflict-pairs.ts). A branch deleted meanwhile,
 * or one git cannot read, is listed in `skipped`, never an error of the whole answer.
 */

import type { RunRecord } from '../runs/index.js';
import { DomainError } from '../shared/errors.js';
import { runGit, type WorkspaceBranches, type WorkspaceService } from '../workspaces/index.js';
import { ConflictPairs, type PairForecast } from './conflict-pairs.js';
import { TARGET_SIDE, type ConflictEntry, type WorkspaceConflicts } from './forecast-schema.js';

/** git processes one forecast runs at once: the machine's other work goes on meanwhile. */
const GIT_AT_ONCE = 4;

/** Answers remembered, by workspace and run asked about, with the commits they were computed on. */
const ANSWERS_KEPT = 256;

export interface ForecastDeps {
  runs: { find(runId: string): Promise<Pick<RunRecord, 'id' | 'status' | 'merged'> | undefined> };
  workspaces: Pick<WorkspaceService, 'branches'>;
}

type Candidate = WorkspaceConflicts['runs'][number];
type Skipped = WorkspaceConflicts['skipped'][number];
/** `out`: the runs that drop out of the comparison — landed, or skipped with a reason. */
type Computed = Pick<WorkspaceConflicts, 'entries' | 'skipped'> & { out: Set<string> };

export class ConflictForecast {
  #pairs: ConflictPairs | undefined;
  /** The last answer per workspace and run, valid while the target and every branch point where they pointed. */
  readonly #answers = new Map<string, { key: string; computed: Computed }>();

  constructor(private readonly deps: ForecastDeps) {}

  /**
   * The forecast of workspace `ref` (an id, a name or an unambiguous prefix; 404 when none). With
   * `runId`, only the entries naming that run (and only its pairs are computed).
   */
  async ofWorkspace(ref: string, options: { runId?: string | undefined } = {}): Promise<WorkspaceConflicts> {
    const site = await this.deps.workspaces.branches(ref);
    const target = site.workspace.default_branch;
    const elsewhere: Skipped[] = site.elsewhere.map((runId) => ({
      runId,
      reason: 'elsewhere',
      message: `run ${runId}'s branch is in another server's home; ask a server of that home`,
    }));
    const answer: WorkspaceConflicts = { workspaceId: site.workspace.id, target, targetCommit: null, runs: [], entries: [], skipped: elsewhere };
    // A directory that is no git repository has no branches to forecast.
    if (!target) return answer;
    const tips = await branchTips(site, target);
    const targetCommit = tips.get(`refs/heads/${target}`);
    if (!targetCommit) return answer;
    const { candidates, gone } = await this.#candidates(site, target, tips);
    const key = [targetCommit, ...candidates.map((c) => `${c.runId}@${c.head}`)].join(' ');
    const cacheKey = `${site.workspace.id} ${options.runId ?? ''}`;
    let computed = this.#answers.get(cacheKey)?.key === key ? this.#answers.get(cacheKey)!.computed : undefined;
    if (!computed) {
      computed = await this.#compute(site, targetCommit, candidates, options.runId);
      // A git failure may pass (a time limit on a busy machine): such an answer is not kept.
      if (!computed.skipped.some((s) => s.reason === 'unreadable')) this.#remember(cacheKey, key, computed);
    }
    return {
      ...answer,
      targetCommit,
      runs: candidates.filter((c) => !computed.out.has(c.runId)),
      entries: computed.entries,
      skipped: [...elsewhere, ...gone, ...computed.skipped],
    };
  }

  /** The runs with a branch here, still there, and not recorded as landed in the target (a run svc merged stops counting). */
  async #candidates(site: WorkspaceBranches, target: string, tips: Map<string, string>): Promise<{ candidates: Candidate[]; gone: Skipped[] }> {
    const candidates: Candidate[] = [];
    const gone: Skipped[] = [];
    for (const { runId, branch } of site.branches) {
      const run = await this.deps.runs.find(runId);
      if (!run || run.merged?.into === target) continue;
      const head = tips.get(`refs/heads/${branch}`);
      if (!head) gone.push({ runId, reason: 'branch_gone', message: `${branch} is no longer in ${site.repository}` });
      else candidates.push({ runId, status: run.status, branch, head });
    }
    return { candidates, gone };
  }

  async #compute(site: WorkspaceBranches, targetCommit: string, candidates: Candidate[], runId: string | undefined): Promise<Computed> {
    const pairs = (this.#pairs ??= new ConflictPairs(site.git));
    const { repository } = site;
    const skipped = new Map<string, Skipped>();
    const unreadable = (id: string, error: unknown) => {
      if (!skipped.has(id)) skipped.set(id, { runId: id, reason: 'unreadable', message: (error as Error).message });
    };
    // Against the target first: a branch whose changes the target has is landed, and pairs with nothing.
    const out = new Set<string>();
    const withTarget: ConflictEntry[] = [];
    await eachAtMost(GIT_AT_ONCE, candidates, async (c) => {
      const forecast = await pairs.pair(repository, targetCommit, c.head).catch((error: unknown) => unreadable(c.runId, error));
      if (!forecast) return out.add(c.runId);
      if (forecast.kind === 'contained') out.add(c.runId);
      else if (forecast.kind === 'unrelated') {
        skipped.set(c.runId, { runId: c.runId, reason: 'unrelated', message: `${c.branch} has no history in common with the target` });
        out.add(c.runId);
      } else if (forecast.kind === 'overlap' && (!runId || c.runId === runId)) withTarget.push(entry(c.runId, TARGET_SIDE, forecast));
    });
    const open = candidates.filter((c) => !out.has(c.runId));
    const asked = open.flatMap((a, i) => open.slice(i + 1).flatMap((b) => (!runId || a.runId === runId ? [[a, b]] : b.runId === runId ? [[b, a]] : [])));
    const between: ConflictEntry[] = [];
    await eachAtMost(GIT_AT_ONCE, asked, async ([a, b]) => {
      // Which of two branches is `ours` changes nothing an entry says (the files in common, or in
      // conflict): asked in one order, whichever run is named first, so the memo answers both.
      const [ours, theirs] = a!.head < b!.head ? [a!.head, b!.head] : [b!.head, a!.head];
      const forecast = await pairs.pair(repository, ours, theirs).catch((error: unknown) => unreadable(b!.runId, error));
      if (forecast?.kind === 'overlap') between.push(entry(a!.runId, b!.runId, forecast));
    });
    // Answers arrive in any order; entries are listed in the order of the runs (newest first).
    const rank = new Map(candidates.map((c, i) => [c.runId, i]));
    const order = (e: ConflictEntry) => [rank.get(e.sides[0]) ?? 0, e.sides[1] === TARGET_SIDE ? -1 : (rank.get(e.sides[1]) ?? 0)];
    const byRuns = (x: ConflictEntry, y: ConflictEntry) => order(x)[0]! - order(y)[0]! || order(x)[1]! - order(y)[1]!;
    return { entries: [...withTarget.sort(byRuns), ...between.sort(byRuns)], skipped: [...skipped.values()], out };
  }

  #remember(cacheKey: string, key: string, computed: Computed): void {
    this.#answers.delete(cacheKey);
    this.#answers.set(cacheKey, { key, computed });
    if (this.#answers.size > ANSWERS_KEPT) this.#answers.delete(this.#answers.keys().next().value!);
  }
}

function entry(run: string, other: string, forecast: Extract<PairForecast, { kind: 'overlap' }>): ConflictEntry {
  return { sides: [run, other], conflict: forecast.conflict, files: forecast.files, truncated: forecast.truncated };
}

/** Where the target and every `svc/*` branch point now, in one `for-each-ref` (ref names hold no newline). */
async function branchTips(site: WorkspaceBranches, target: string): Promise<Map<string, string>> {
  const options = { cwd: site.repository, env: site.git.env, timeoutMs: site.git.timeoutMs };
  const out = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', `refs/heads/${target}`, 'refs/heads/svc'], options).catch((error: Error) => {
    throw new DomainError('workspace_path_missing', `Workspace ${site.workspace.id}'s repository ${site.repository} could not be read: ${error.message}`, {
      workspaceId: site.workspace.id,
      path: site.repository,
    });
  });
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))] as const),
  );
}

/** Calls `work` on every item, at most `limit` at a time. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
