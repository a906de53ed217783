// A repository for landing-queue tests (docs/contract.md, "Landing queue"): a small module with its
// own tests (`node test.js` runs every file under tests/), `verify: node test.js` in
// .svc/worktree.yaml, and workflows whose one bash node edits the module in the run's worktree (the
// node's commit is the run's change). Registered by path as a workspace of the given server.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, startRun, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import { git, makeRepository } from '../helpers/git.js';

type Target = Parameters<typeof api>[0];

export const MATH = [
  'exports.a = () => 1;',
  '// one',
  '// two',
  '// three',
  'exports.b = () => 2;',
  '// four',
  '// five',
  '// six',
  'exports.c = () => 3;',
  '',
].join('\n');

const TEST_RUNNER = `const { readdirSync } = require('node:fs');
for (const file of readdirSync(__dirname + '/tests').sort()) require('./tests/' + file);
console.log('all tests pass');
`;

const BASIC_TEST = `const assert = require('node:assert');
const m = require('../math.js');
assert.strictEqual(typeof m.a(), 'number');
assert.strictEqual(typeof m.c(), 'number');
`;
const B_TEST = `const assert = require('node:assert');
const m = require('../math.js');
assert.strictEqual(typeof m.b(), 'number', 'b is a function returning a number');
`;

/** A workflow that runs `script` (bash) in the run's worktree. */
export const edit = (name: string, script: string) => ({ name, nodes: [{ id: 'edit', bash: script }] });

/** The repository, registered by path; `verify` (default `node test.js`) and `config`'s lines go into .svc/worktree.yaml. */
export async function queueRepository(
  server: Target,
  workflows: Array<{ name: string; nodes: Json[]; [key: string]: unknown }>,
  options: { verify?: string | null; config?: string } = {},
): Promise<{ dir: string; workspaceId: string }> {
  const dir = await tempDir('svc-queue-repo-');
  makeRepository(dir, { 'README.md': '# demo\n', 'math.js': MATH, 'test.js': TEST_RUNNER });
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'tests', 'basic.test.js'), BASIC_TEST);
  writeFileSync(join(dir, 'tests', 'b.test.js'), B_TEST);
  const verify = options.verify === undefined ? 'node test.js' : options.verify;
  mkdirSync(join(dir, '.svc'), { recursive: true });
  if (verify !== null || options.config) {
    writeFileSync(join(dir, '.svc', 'worktree.yaml'), `${verify === null ? '' : `verify: ${JSON.stringify(verify)}\n`}${options.config ?? ''}`);
  }
  await writeWorkflows(dir, workflows);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'tests, verify and workflows');
  const workspace = await api(server, 'POST', '/api/workspaces', { path: dir });
  if (workspace.status !== 201 && workspace.status !== 200) throw new Error(`register answered ${workspace.status}: ${JSON.stringify(workspace.body)}`);
  return { dir, workspaceId: workspace.body.id };
}

/** Runs `workflow` on the workspace to its end; it must complete. */
export async function finishedRun(server: Target, workspaceId: string, workflow: string, message = `run ${workflow}`): Promise<string> {
  const run = await waitForRun(server, await startRun(server, workflow, { message, workspaceId }));
  if (run.status !== 'completed') throw new Error(`${workflow} ended ${run.status}: ${JSON.stringify(run.error)}`);
  return run.id;
}

export async function enqueue(server: Target, runId: string, body: Json = {}): Promise<Json> {
  const answer = await api(server, 'POST', `/api/workflows/runs/${runId}/merge`, { queue: true, ...body });
  if (answer.status !== 202) throw new Error(`enqueue answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.entry;
}

export async function queueOf(server: Target, workspaceId: string): Promise<Json[]> {
  const answer = await api(server, 'GET', `/api/workspaces/${workspaceId}/queue`);
  if (answer.status !== 200) throw new Error(`queue answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.entries;
}

export async function eventsOf(server: Target, runId: string): Promise<Json[]> {
  return (await api(server, 'GET', `/api/workflows/runs/${runId}`)).body.events;
}

/** `node test.js` at `commit`, in a throwaway worktree of `dir`: whether the target's tests pass there. */
export async function testsPassAt(dir: string, commit: string): Promise<boolean> {
  const at = join(await tempDir('svc-queue-check-'), 'tree');
  git(dir, 'worktree', 'add', '-q', '--detach', at, commit);
  try {
    execFileSync('node', ['test.js'], { cwd: at, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    git(dir, 'worktree', 'remove', '--force', at);
  }
}

/** The landing commits on the target's first-parent line (those naming a run), oldest first: hash and whole message. */
export function landings(dir: string, target = 'main'): Array<{ commit: string; message: string }> {
  const out = git(dir, 'log', '--first-parent', '--reverse', '--format=%H%x00%B%x01', target);
  return out
    .split('\x01')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [commit, message] = part.split('\x00');
      return { commit: commit!, message: message!.trim() };
    })
    .filter((landing) => landing.message.includes('Svc-Run:'));
}
