// The conflict forecast (issue 34, docs/decisions.md, "Conflict forecast"): real runs on a real git
// repository registered by path, whose bash nodes commit to svc/<runId>. `GET
// /api/workspaces/{id}/conflicts` names each pair of unlanded branches (or a branch and `target`)
// that conflict or change the same files; `svc workspace conflicts`, `svc runs show` and the
// approval prompt say it in words.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../../src/cli/main.js';
import { testIO } from '../../src/cli/test-io.js';
import { ConflictPairs } from '../../src/landing/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { git, makeRepository } from '../helpers/git.js';
import { registerProject, runOn } from '../helpers/registered-project.js';
import { api, cleanupAll, startRun, startServer, tempDir, waitFor, waitForStatus, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

const MATH = 'export const one = 1;\nexport const two = 2;\nexport const three = 3;\nexport const four = 4;\nexport const five = 5;\n';
/** A file name with a space, a newline and a non-ASCII letter: read from git with -z, quoted when printed. */
const HOSTILE = 'we ird\nnäme.txt';

const WORKFLOWS: Workflow[] = [
  // Each run writes its own id into the line: two runs of one workflow change the same line differently.
  { name: 'top', nodes: [{ id: 'edit', bash: 'sed -i "1s/.*/export const one = \\"$RUN_ID\\";/" math.js' }] },
  { name: 'bottom', nodes: [{ id: 'edit', bash: 'sed -i "5s/.*/export const five = \\"$RUN_ID\\";/" math.js' }] },
  { name: 'other', nodes: [{ id: 'write', bash: 'printf "%s\\n" "$RUN_ID" > other.txt' }] },
  {
    name: 'gated-top',
    nodes: [
      { id: 'edit', bash: 'sed -i "1s/.*/export const one = \\"$RUN_ID\\";/" math.js' },
      { id: 'gate', approval: { message: 'land it?' }, depends_on: ['edit'] },
    ],
  },
  { name: 'hostile', nodes: [{ id: 'write', bash: `f=$'we ird\\n'näme.txt; printf '%s\\n' "$RUN_ID" > "$f"` }] },
  { name: 'many', nodes: [{ id: 'write', bash: 'for i in $(seq 1 150); do printf "%s\\n" "$RUN_ID" > "f$i.txt"; done' }] },
];

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ socket: true });
});
afterAll(cleanupAll);

const project = () => registerProject(server, { files: { 'math.js': MATH, 'README.md': '# demo\n' }, workflows: WORKFLOWS });

async function completed(workflow: string, workspaceId: string): Promise<Json> {
  const run = await runOn(server, workflow, workspaceId);
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  return run;
}

async function forecast(workspaceId: string, runId?: string): Promise<Json> {
  const { status, body } = await api(server, 'GET', `/api/workspaces/${workspaceId}/conflicts${runId ? `?runId=${runId}` : ''}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The entry between two sides, whichever order it names them in. */
const between = (answer: Json, a: string, b: string): Json | undefined =>
  (answer.entries as Json[]).find((e) => (e.sides[0] === a && e.sides[1] === b) || (e.sides[0] === b && e.sides[1] === a));

const svc = (args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });

describe('GET /api/workspaces/{id}/conflicts', () => {
  it('same line: conflict between the runs; other lines of the file: conflict false with the file; other files: no entry; after one lands, the other conflicts with target', async () => {
    const { dir, workspace } = await project();
    const a = await completed('top', workspace.id);
    const b = await completed('top', workspace.id);
    const c = await completed('bottom', workspace.id);
    const d = await completed('other', workspace.id);

    const before = await forecast(workspace.id);
    expect(before).toMatchObject({ workspaceId: workspace.id, target: 'main', targetCommit: git(dir, 'rev-parse', 'main'), skipped: [] });
    expect((before.runs as Json[]).map((r) => r.runId).sort()).toEqual([a.id, b.id, c.id, d.id].sort());
    expect(before.runs.find((r: Json) => r.runId === a.id)).toEqual({ runId: a.id, status: 'completed', branch: `svc/${a.id}`, head: a.headCommit });
    expect(between(before, a.id, b.id)).toMatchObject({ conflict: true, files: ['math.js'], truncated: false });
    expect(between(before, a.id, c.id)).toMatchObject({ conflict: false, files: ['math.js'], truncated: false });
    expect(between(before, b.id, c.id)).toMatchObject({ conflict: false, files: ['math.js'] });
    // The target has not moved: every branch merges into it cleanly, and d shares no file with anyone.
    expect(before.entries).toHaveLength(3);
    expect((before.entries as Json[]).some((e) => e.sides.includes(d.id) || e.sides.includes('target'))).toBe(false);
    // Asked again with nothing moved: the same answer.
    expect(await forecast(workspace.id)).toEqual(before);

    const merged = await api(server, 'POST', `/api/workflows/runs/${a.id}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const after = await forecast(workspace.id);
    expect((after.runs as Json[]).map((r) => r.runId).sort()).toEqual([b.id, c.id, d.id].sort());
    expect(between(after, b.id, 'target')).toEqual({ sides: [b.id, 'target'], conflict: true, files: ['math.js'], truncated: false });
    // c's line 5 merges cleanly onto a's line 1, but both change math.js.
    expect(between(after, c.id, 'target')).toEqual({ sides: [c.id, 'target'], conflict: false, files: ['math.js'], truncated: false });
    expect(between(after, a.id, b.id)).toBeUndefined();

    // Only the entries naming one run; a run that collides with nothing has none.
    const ofC = await forecast(workspace.id, c.id);
    expect(ofC.entries).toEqual([
      { sides: [c.id, 'target'], conflict: false, files: ['math.js'], truncated: false },
      { sides: [c.id, b.id], conflict: false, files: ['math.js'], truncated: false },
    ]);
    expect((await forecast(workspace.id, d.id)).entries).toEqual([]);

    // The target moves (the user commits line 5 on main): the next ask sees it.
    writeFileSync(join(dir, 'math.js'), git(dir, 'show', 'main:math.js').replace('export const five = 5;', 'export const five = 55;') + '\n');
    git(dir, 'commit', '-q', '-am', 'five is 55');
    const afterMove = await forecast(workspace.id);
    expect(afterMove.targetCommit).toBe(git(dir, 'rev-parse', 'main'));
    expect(between(afterMove, c.id, 'target')).toMatchObject({ conflict: true, files: ['math.js'] });
  });

  it('404 for an unknown workspace, with the usual error body', async () => {
    const { status, body } = await api(server, 'GET', '/api/workspaces/ws_nosuchworkspace/conflicts');
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: 'workspace_not_found', message: expect.stringContaining('ws_nosuchworkspace') });
  });

  it('a hostile file name comes back whole; over 100 files is cut with truncated; a branch deleted meanwhile is skipped', async () => {
    const { dir, workspace } = await project();
    const h1 = await completed('hostile', workspace.id);
    const h2 = await completed('hostile', workspace.id);
    const m1 = await completed('many', workspace.id);
    const m2 = await completed('many', workspace.id);
    const answer = await forecast(workspace.id);
    expect(between(answer, h1.id, h2.id)).toMatchObject({ conflict: true, files: [HOSTILE], truncated: false });
    const many = between(answer, m1.id, m2.id)!;
    expect(many).toMatchObject({ conflict: true, truncated: true });
    expect(many.files).toHaveLength(100);

    const shown = await svc(['workspace', 'conflicts', workspace.id]);
    expect(shown.code, shown.stderr).toBe(0);
    // Quoted: the newline cannot break the line, nor the space pass for two names.
    expect(shown.stdout).toContain(JSON.stringify(HOSTILE));
    expect(shown.stdout).toMatch(/f\d+\.txt and more/);

    git(dir, 'update-ref', '-d', `refs/heads/svc/${h2.id}`);
    const gone = await forecast(workspace.id);
    expect(gone.skipped).toEqual([{ runId: h2.id, reason: 'branch_gone', message: expect.stringContaining(`svc/${h2.id}`) }]);
    expect(between(gone, h1.id, h2.id)).toBeUndefined();
  });
});

describe('the forecast in words', () => {
  it('svc runs show says what the run conflicts with and touches; svc workspace conflicts prints a table, --json the answer', async () => {
    const { workspace } = await project();
    const a = await completed('top', workspace.id);
    const b = await completed('top', workspace.id);
    const c = await completed('bottom', workspace.id);
    const d = await completed('other', workspace.id);

    const shownB = await svc(['runs', 'show', b.id]);
    expect(shownB.code, shownB.stderr).toBe(0);
    expect(shownB.stdout).toContain(`  forecast: conflicts with ${a.id} in math.js; touches math.js like ${c.id}\n`);
    const shownD = await svc(['runs', 'show', d.id]);
    expect(shownD.stdout).not.toContain('forecast:');

    expect((await api(server, 'POST', `/api/workflows/runs/${a.id}/merge`, {})).status).toBe(200);
    expect((await svc(['runs', 'show', b.id])).stdout).toContain(`  forecast: conflicts with main in math.js; touches math.js like ${c.id}\n`);
    // The landed run has nothing left to forecast.
    expect((await svc(['runs', 'show', a.id])).stdout).not.toContain('forecast:');

    const table = await svc(['workspace', 'conflicts', workspace.id]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^main at [0-9a-f]{10}; 3 unlanded branches\.$/);
    // Not a terminal: tab-separated rows, no header, as every svc table prints to a pipe; the newest run first.
    expect(lines.slice(1).map((line) => line.split('\t'))).toEqual([
      [c.id, 'main', 'same files', 'math.js'],
      [b.id, 'main', 'conflict', 'math.js'],
      [c.id, b.id, 'same files', 'math.js'],
    ]);

    const json = await svc(['workspace', 'conflicts', workspace.id, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await forecast(workspace.id));

    const missing = await svc(['workspace', 'conflicts', 'no-such-workspace']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("No workspace 'no-such-workspace'");
  });

  it('the approval prompt shows the conflict of the run picked before anything is approved', async () => {
    const { workspace } = await project();
    const first = await startRun(server, 'gated-top', { message: 'first', workspaceId: workspace.id });
    await waitForStatus(server, first, 'paused');
    const second = await startRun(server, 'gated-top', { message: 'second', workspaceId: workspace.id });
    await waitForStatus(server, second, 'paused');

    const io = testIO({ env: { PATH: process.env.PATH, SVC_HOME: server.home }, tty: true, canPrompt: true });
    let screen = '';
    io.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const done = runSvc(['--url', server.url, 'approve'], io);
    await waitFor(
      () => screen.includes('Which run do you want to approve?'),
      10_000,
      () => screen,
    );
    // Enter: the first run offered, whichever it is; the line names the other one.
    (io.stdin as PassThrough).write('\r');
    await waitFor(
      () => screen.includes("Comment (becomes the gate's output)"),
      10_000,
      () => screen,
    );
    // What the command prints (io.out) is kept apart from the prompt's drawing in a test terminal.
    const picked = io.stdoutText().includes(`Forecast for ${first}:`) ? first : second;
    const other = picked === first ? second : first;
    expect(io.stdoutText()).toBe(`Forecast for ${picked}: conflicts with ${other} in math.js\n`);
    // Nothing approved yet: the reviewer can still walk away.
    (io.stdin as PassThrough).end();
    expect(await done).toBe(2);
    expect((await api(server, 'GET', `/api/workflows/runs/${picked}`)).body.status).toBe('paused');
  });
});

describe('ConflictPairs, the function the landing queue will call', () => {
  it('a file on one side and a directory of that name on the other conflict with no path in common; a branch landed by squash is contained', async () => {
    const dir = makeRepository(await tempDir('svc-pairs-'));
    /** A branch from main adding `path` (its directories made), and its commit. */
    const branchAdding = (branch: string, path: string) => {
      git(dir, 'checkout', '-q', '-b', branch, 'main');
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), `${branch}\n`);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', branch);
      return git(dir, 'rev-parse', 'HEAD');
    };
    const file = branchAdding('file', 'd');
    const directory = branchAdding('directory', 'd/f');
    const pairs = new ConflictPairs({ env: process.env });
    expect(await pairs.pair(dir, file, directory)).toMatchObject({ kind: 'overlap', conflict: true });

    // The file branch squashed into main by hand: main has its changes, so it is contained there.
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--squash', 'file');
    git(dir, 'commit', '-q', '-m', 'squashed');
    expect(await pairs.pair(dir, git(dir, 'rev-parse', 'main'), file)).toEqual({ kind: 'contained' });
    // And asked again, the same answer (from the memo: the commits have not changed).
    expect(await pairs.pair(dir, git(dir, 'rev-parse', 'main'), file)).toEqual({ kind: 'contained' });
  });
});
