// A new user's first `svc run fix-issue "<task>" --workspace <id>` (issue 20, "Bundled workflows"),
// end to end through the built binary against a real server, with the fake claude: the task
// text reaches every agent's prompt, and its `[fake:write=…]` makes each agent try to write the
// file. The implement node (`edit`) writes it and svc commits it on the run's branch; the plan
// and summary nodes (`read`) are refused, which the stream and the CLI say, and commit nothing.
// The gate points at `svc runs diff <run>`, which shows the change; approving completes the run.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getRun, startServer, tempDir, type Json } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let repo: string;
let workspaceId: string;

/** The repository's tests pass only once the fix is there: fix-issue's test node runs `make test`. */
const MAKEFILE = 'test:\n\ttest -f fix.txt\n\t@echo "tests passed"\n';
const TASK = 'Add fix.txt to the repository [fake:write=fix.txt]';

beforeAll(async () => {
  server = await startServer({ socket: true });
  repo = join(await tempDir('svc-fix-issue-'), 'project');
  await mkdir(repo);
  makeRepository(repo, { 'README.md': '# demo\n', Makefile: MAKEFILE });
  const added = await svc(['workspace', 'add', repo, '--json']);
  expect(added.code, added.stderr).toBe(0);
  workspaceId = JSON.parse(added.stdout).id;
});
afterAll(cleanupAll);

/** The CLI as a user runs it beside a server: it finds the server through SVC_HOME's lock file. */
const svc = (args: string[]) => runSvcInProcess(args, { SVC_HOME: server.home }, { cwd: repo });

const toolEvents = (run: Json) =>
  (run.events as Json[]).filter((e) => e.type === 'agent_tool').map(({ nodeId, summary, status }) => `${nodeId} ${status} ${summary}`);

describe('svc run fix-issue on a workspace, with the fake claude', () => {
  let runId: string;
  let paused: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    paused = await svc(['run', 'fix-issue', TASK, '--workspace', workspaceId, '--verbose']);
    runId = /paused at approve: .*svc runs diff (run_\S+)`/.exec(paused.stdout)?.[1] ?? '';
  });

  it('stops at the gate (exit 4), pointing at svc runs diff with the run id', async () => {
    expect(paused.code, paused.stdout + paused.stderr).toBe(4);
    expect(runId).toMatch(/^run_/);
    const run = await getRun(server, runId);
    expect(run).toMatchObject({ status: 'paused', workflow: 'fix-issue', workspaceId });
    expect(paused.stdout).toContain(`approve: svc approve ${runId}`);
    // The plan's refused write showed as it happened.
    expect(paused.stdout).toContain('[plan] tool denied: Write fix.txt');
    expect(paused.stdout).toContain('[implement] tool: Write fix.txt');
    expect(paused.stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^paused fix-issue ${runId} .*— the agent was denied 1 tool call: Write fix\\.txt$`));
  });

  it("commits the implement node's change on svc/<run id>, and nothing of the plan's", async () => {
    const run = await getRun(server, runId);
    expect(run.nodes.plan).toMatchObject({ status: 'completed', permissions: 'read', commit: null, toolCalls: 1, toolsDenied: ['Write fix.txt'] });
    expect(run.nodes.implement).toMatchObject({ status: 'completed', permissions: 'edit', toolCalls: 1, toolsDeniedCount: 0 });
    expect(run.nodes.implement.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(run.nodes.test).toMatchObject({ status: 'completed', output: expect.stringContaining('tests passed'), commit: null });
    expect(run).toMatchObject({ branch: `svc/${runId}`, headCommit: run.nodes.implement.commit });
    // One commit on the branch, svc's, holding the fix alone; the workspace's own checkout is untouched.
    const worktree = run.cwd as string;
    expect(git(worktree, 'log', '--format=%s', `${run.baseCommit}..svc/${runId}`)).toBe('fix-issue: implement');
    expect(git(worktree, 'show', '--name-only', '--format=', run.nodes.implement.commit)).toBe('fix.txt');
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(worktree, 'fix.txt'), 'utf8')).toBe('written by fake-claude\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('svc runs diff shows the change to the person at the gate', async () => {
    const stat = await svc(['runs', 'diff', runId, '--stat']);
    expect(stat.code, stat.stderr).toBe(0);
    expect(stat.stdout).toBe('fix.txt\tadded\t1\t0\t\n');
    const patch = await svc(['runs', 'diff', runId]);
    expect(patch.code, patch.stderr).toBe(0);
    expect(patch.stdout).toContain('+++ b/fix.txt\n@@ -0,0 +1 @@\n+written by fake-claude\n');
  });

  it('approve → the summary runs (its write refused, nothing committed) and the run completes, saying what was refused', async () => {
    const approved = await svc(['approve', runId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`Run ${runId} approved`);
    // Following it to its end: completed, and — its read-only agents having been refused — not a plain success.
    const watched = await svc(['watch', runId, '--exit-status']);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    expect(watched.stdout.trimEnd().split('\n').at(-1)).toMatch(/^completed fix-issue .*— the agent was denied 2 tool calls: Write fix\.txt, Write fix\.txt$/);

    const run = await getRun(server, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.summary).toMatchObject({ status: 'completed', permissions: 'read', commit: null, toolsDenied: ['Write fix.txt'] });
    expect(run.headCommit).toBe(run.nodes.implement.commit);
    expect(toolEvents(run)).toEqual(['plan denied Write fix.txt', 'implement ok Write fix.txt', 'summary denied Write fix.txt']);
    const shown = await svc(['runs', 'show', runId]);
    expect(shown.stdout.split('\n')[0]).toMatch(/completed — the agent was denied 2 tool calls: Write fix\.txt, Write fix\.txt/);
    expect(shown.stdout).toContain(`branch:   svc/${runId}`);
  });
});
