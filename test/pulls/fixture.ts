// What the tests of following a pull request share: a cloned workspace whose `origin` is a real bare
// repository, a finished run on it, and the scripted stand-in of gh (test/fixtures/fake-gh) that
// plays the pull request's life from a state file the test edits.
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  api,
  readJsonLines,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  waitForStatus,
  writeWorkflows,
  type Json,
  type Target,
  type Workflow,
} from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

const FAKE_GH = fileURLToPath(new URL('../fixtures/fake-gh', import.meta.url));

/** The follow-on workflows of the test repository: bash nodes standing in for agents, writing what they were told. */
export const FIX_CI: Workflow = {
  name: 'fix-ci',
  nodes: [{ id: 'fix', bash: 'printf "%s\\n" "$ARGUMENTS" > "fix-$RUN_ID.txt"' }],
};
export const ADDRESS_REVIEW: Workflow = {
  name: 'address-review',
  nodes: [{ id: 'address', bash: 'printf "%s\\n" "$ARGUMENTS" > "review-$RUN_ID.txt"' }],
};
/** A follow-on that waits at a gate first: the test chooses when it goes on (a comment meanwhile, a restart). */
export const gated = (workflow: Workflow): Workflow => ({
  ...workflow,
  nodes: [{ id: 'gate', approval: { message: 'go?' } }, ...workflow.nodes.map((node) => ({ ...node, depends_on: ['gate'] }))],
});

export interface FakeGh {
  bin: string;
  dir: string;
  state(): Json;
  /** Changes what GitHub holds: `change` edits the state in place. */
  edit(change: (state: Json) => void): void;
  /** Changes one pull request: `change` edits it in place. */
  pull(number: number, change: (pull: Json) => void): void;
  calls(): string[][];
  /** Replies posted, to pull request `number` when given. */
  replies(number?: number): Json[];
}

export async function fakeGh(): Promise<FakeGh> {
  const dir = await tempDir('svc-fake-gh-');
  const bin = join(dir, 'gh');
  symlinkSync(FAKE_GH, bin);
  const file = join(dir, 'state.json');
  writeFileSync(file, JSON.stringify({ pulls: [], logs: {} }));
  const state = () => JSON.parse(readFileSync(file, 'utf8')) as Json;
  const edit = (change: (state: Json) => void) => {
    const next = state();
    change(next);
    writeFileSync(`${file}.tmp`, JSON.stringify(next));
    // A rename: the stand-in never reads a half-written state.
    renameSync(`${file}.tmp`, file);
  };
  return {
    bin,
    dir,
    state,
    edit,
    pull: (number, change) => edit((s) => change((s.pulls as Json[]).find((p) => p.number === number)!)),
    calls: () => (existsSync(join(dir, 'calls.jsonl')) ? (readJsonLines(join(dir, 'calls.jsonl')) as unknown as string[][]) : []),
    replies: (number) =>
      (existsSync(join(dir, 'replies.jsonl')) ? readJsonLines(join(dir, 'replies.jsonl')) : []).filter((r) => number === undefined || r.pull === number),
  };
}

/**
 * A test server whose gh is a fresh stand-in, looking at pull requests every 100 ms unless `env`
 * says otherwise; `socket`: on a loopback port, for a browser or the CLI to reach (test/helpers/server.ts).
 */
export async function pullServer(env: Record<string, string> = {}, options: { socket?: boolean } = {}): Promise<{ server: TestServer; gh: FakeGh }> {
  const gh = await fakeGh();
  return { gh, server: await startServer({ ...options, env: { SVC_GH_BIN: gh.bin, SVC_PR_POLL_MS: '100', ...env } }) };
}

/** A workspace cloned from a bare repository holding `workflows` (`grow` among them), and a completed run of `grow` on it. */
export async function grownRun(server: Target, workflows: Workflow[], grow: Partial<Workflow> = {}): Promise<{ bare: string; workspace: Json; run: Json }> {
  const parent = await tempDir('svc-pr-');
  const work = join(parent, 'seed');
  mkdirSync(work);
  makeRepository(work, { 'README.md': '# widgets\n' });
  await writeWorkflows(work, [{ name: 'grow', nodes: [{ id: 'grow', bash: "printf 'grown\\n' > feature.txt" }], ...grow }, ...workflows]);
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'workflows');
  const bare = join(parent, 'widgets.git');
  git(parent, 'clone', '-q', '--bare', work, bare);
  const workspace = (await api(server, 'POST', '/api/workspaces', { url: `file://${bare}` })).body;
  const run = await waitForRun(server, await startRun(server, 'grow', { message: 'Grow the widgets', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  return { bare, workspace, run };
}

let numbers = 6;

/**
 * Opens the run's pull request through `svc runs pr` (gh's stand-in answers), which follows it;
 * `pull` sets what GitHub holds of it first (checks, review, threads). Resolves to its number.
 */
export async function openPullRequest(server: Target, gh: FakeGh, run: Json, bare: string, pull: Json = {}): Promise<number> {
  const number = (numbers += 1);
  gh.edit((state) => {
    state.pulls.push({
      number,
      url: `https://github.com/me/widgets/pull/${number}`,
      state: 'OPEN',
      headRefName: `svc/${run.id}`,
      origin: bare,
      reviewDecision: '',
      checks: {},
      defaultChecks: [],
      threads: [],
      ...pull,
    });
  });
  // By a prefix of the run's id, as a person types it.
  const answer = await api(server, 'POST', `/api/workflows/runs/${run.id.slice(0, 16)}/pr`, {});
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return number;
}

/** Looks at pull request `number` the stand-in answered (`gh pr view`), so far. */
export const looksAt = (gh: FakeGh, number: number) => gh.calls().filter((c) => c[0] === 'pr' && c[1] === 'view' && c[2] === String(number)).length;

/** Until svc looked at pull request `number` `n` more times: the chance given to something that must not happen. */
export async function givenLooks(gh: FakeGh, number: number, n: number): Promise<void> {
  const before = looksAt(gh, number);
  await waitFor(() => looksAt(gh, number) >= before + n);
}

/** A review comment as GitHub's GraphQL answers it: its id past 2^31, as a string (\`fullDatabaseId\`), by a member unless told. */
export const reviewComment = (id: string, path: string, line: number, body: string, author = { login: 'reviewer', association: 'MEMBER', type: 'User' }) => ({
  fullDatabaseId: id,
  path,
  line,
  body,
  author: { login: author.login, __typename: author.type },
  authorAssociation: author.association,
});

export const ACTIONS_RUN = '111';
export const checkRun = (conclusion: 'SUCCESS' | 'FAILURE' | null, name = 'test') => ({
  name,
  status: conclusion ? 'COMPLETED' : 'IN_PROGRESS',
  conclusion: conclusion ?? '',
  detailsUrl: `https://github.com/me/widgets/actions/runs/${ACTIONS_RUN}/job/222`,
});

/** A failed job's log as `gh run view --log-failed` prints it: set-up, the failure, then a long summary below it. */
export function failedJobLog(failure: string[] = ['FAIL src/math.test.js', '  expected 3, got 4'], job = 'test'): string {
  const line = (step: string, text: string) => `${job}\t${step}\t2026-01-01T00:00:00.0000000Z ${text}`;
  return [
    ...Array.from({ length: 30 }, (_, i) => line('Set up job', `setting up ${i}`)),
    line('Run npm test', '> widgets@1.0.0 test'),
    ...failure.map((text) => line('Run npm test', text)),
    ...Array.from({ length: 120 }, (_, i) => line('Post job cleanup', `summary line ${i}`)),
  ].join('\n');
}

/** The run detail's `pr` once `predicate` holds. */
export async function waitForPull(server: Target, runId: string, predicate: (run: Json) => boolean, timeoutMs = 30_000): Promise<Json> {
  let last: Json | undefined;
  await waitFor(
    async () => {
      last = (await api(server, 'GET', `/api/workflows/runs/${runId}`)).body;
      return predicate(last!);
    },
    timeoutMs,
    () => `for the pull request of ${runId}; last seen: ${JSON.stringify({ pr: last?.pr, needsHuman: last?.needsHumanReason })}`,
  );
  return last!;
}

/** The run detail once the run's first reaction has pushed its result to the pull request. */
export const firstReactionPushed = (server: Target, runId: string): Promise<Json> => waitForPull(server, runId, (r) => r.pr?.reactions[0]?.state === 'pushed');

/**
 * A grown run whose pull request has changes requested in two threads, their first comments
 * `first` and `second` (on line 1 and line 2 of two files), and the follow-on run of
 * `address-review` (gated) that answers them paused at its gate: the test chooses when it goes on.
 */
export async function pausedReviewReaction(
  server: Target,
  gh: FakeGh,
  [first, second]: [string, string],
): Promise<{ run: Json; number: number; followOn: string }> {
  const { bare, run } = await grownRun(server, [FIX_CI, gated(ADDRESS_REVIEW)]);
  const number = await openPullRequest(server, gh, run, bare, {
    defaultChecks: [checkRun('SUCCESS')],
    reviewDecision: 'CHANGES_REQUESTED',
    threads: [
      { isResolved: false, comments: [reviewComment(first, 'src/a.js', 1, 'First.')] },
      { isResolved: false, comments: [reviewComment(second, 'src/b.js', 2, 'Second.')] },
    ],
  });
  const started = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'running');
  const followOn = started.pr.reactions[0].followOnRunId as string;
  await waitForStatus(server, followOn, 'paused');
  return { run, number, followOn };
}

/**
 * A grown run (`grownRun`) whose pull request's check fails on its head with the failed job's log
 * (`failedJobLog`) and passes on any later head: the run, its origin and the pull request's number.
 */
export async function redPullRequest(
  server: Target,
  gh: FakeGh,
  workflows: Workflow[],
  grow: Partial<Workflow> = {},
): Promise<{ bare: string; run: Json; number: number }> {
  const { bare, run } = await grownRun(server, workflows, grow);
  gh.edit((state) => {
    state.logs[ACTIONS_RUN] = failedJobLog();
  });
  const number = await openPullRequest(server, gh, run, bare, { checks: { [run.headCommit]: [checkRun('FAILURE')] }, defaultChecks: [checkRun('SUCCESS')] });
  return { bare, run, number };
}

export const followOns = async (server: Target, runId: string): Promise<Json[]> =>
  (await api(server, 'GET', `/api/workflows/runs?fromRunId=${runId}`)).body.runs as Json[];
