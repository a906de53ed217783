// The newcomer's first hour, end to end (issue 32, "Done when"): two repositories with overlapping
// workflow names, a custom workflow, a failing test's output, a tolerated failure, two parallel
// runs and a webhook, through the built CLI as a user types it against a real `svc serve` process
// (found through SVC_HOME, as a user's CLI finds it), plus one signed HTTP delivery. Nothing reads
// the source and nothing is killed: every command must end by itself within its time limit.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { git, makeRepository, treeDigest } from '../helpers/git.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { deliver, SECRET } from '../helpers/webhooks.js';

let serve: ServeProcess;
let home: string;
let root: string;
let alpha: string;
let beta: string;

/**
 * `svc <args>` in `cwd`, as typed in a terminal whose SVC_HOME is the server's. A command still
 * running after `limitMs` is SIGKILLed and fails the test: every command must end by itself.
 */
async function svc(cwd: string, args: string[], limitMs = 20_000): Promise<CliResult> {
  const started = Date.now();
  const result = await runCli(args, { env: { SVC_HOME: home }, cwd, timeoutMs: limitMs });
  const elapsed = Date.now() - started;
  const shown = `svc ${args.join(' ')} (in ${cwd})`;
  expect(
    elapsed < limitMs && result.code !== null,
    `${shown} did not end by itself within ${limitMs} ms\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  ).toBe(true);
  return result;
}

/** The run id `svc run` announces (`run <id> of <workflow> created`). */
function announcedRun(result: CliResult): string {
  const match = /^run (run_\S+) of \S+ created$/m.exec(result.stdout);
  expect(match, result.stdout + result.stderr).not.toBeNull();
  return match![1]!;
}

const ADD_BROKEN = 'add() { echo $(( $1 - $2 )); }\n';
const ADD_FIXED = 'add() { echo $(( $1 + $2 )); }\n';

/** Repository A's workflows: its fix-add (a sed and a check), a failing test, a tolerated lint failure. */
const ALPHA_WORKFLOWS: Record<string, string> = {
  'fix-add': [
    'name: fix-add',
    "description: alpha's fix of add",
    'nodes:',
    '  - id: fix',
    "    bash: sed -i 's/\\$1 - \\$2/$1 + $2/' add.sh",
    '  - id: check',
    '    bash: . ./add.sh && test "$(add 2 3)" = 5 && echo "add 2 3 = 5"',
    '    depends_on: [fix]',
  ].join('\n'),
  'test-add': [
    'name: test-add',
    'description: the tests of add, one of which fails',
    'nodes:',
    '  - id: test',
    '    bash: |',
    '      for i in $(seq 1 40); do echo "ok $i - add case $i"; done',
    '      . ./add.sh',
    '      echo "not ok 41 - add 2 2: expected 5, got $(add 2 2)" >&2',
    '      exit 1',
  ].join('\n'),
  'lint-then-test': [
    'name: lint-then-test',
    'description: a lint that may fail, then the tests',
    'nodes:',
    '  - id: lint',
    '    bash: echo "add.sh:1 style, line too long" && exit 1',
    '    continue_on_error: true',
    '  - id: test',
    '    bash: echo "tests pass"',
    '    depends_on: [lint]',
  ].join('\n'),
};

/** Repository B's fix-add: same name, another body (slower, and it leaves its run id in add.sh). */
const BETA_FIX_ADD = [
  'name: fix-add',
  "description: beta's fix of add",
  'nodes:',
  '  - id: fix',
  '    bash: sleep 1 && echo "# fixed by beta in $RUN_ID" >> add.sh',
].join('\n');

/** A git repository `dir` holding add.sh and the given workflow files, committed. */
async function repository(dir: string, workflows: Record<string, string>): Promise<string> {
  await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
  for (const [name, text] of Object.entries(workflows)) await writeFile(join(dir, '.svc', 'workflows', `${name}.yaml`), text + '\n');
  makeRepository(dir, { 'add.sh': ADD_BROKEN });
  return dir;
}

beforeAll(async () => {
  root = realpathSync(await tempDir('svc-first-hour-'));
  home = join(root, 'home');
  const server = join(root, 'server');
  await mkdir(server);
  alpha = await repository(join(root, 'alpha'), ALPHA_WORKFLOWS);
  beta = await repository(join(root, 'beta'), { 'fix-add': BETA_FIX_ADD });
  // The webhook's secret is the server's to know; the user's terminal does not have it.
  serve = await spawnServe({ home, cwd: server, env: { PUSH_SECRET: SECRET } });
}, 30_000);

afterAll(async () => {
  await serve?.stop();
  await killAllServes();
  await cleanupAll();
});

// Longer than any one step's commands together (each at most 30 s), so a command over its limit is what fails.
describe("a newcomer's first hour with two repositories", { timeout: 120_000 }, () => {
  it('1. registers both repositories by path, then knows them by name', async () => {
    const status = await svc(root, ['status']);
    expect(status.code, status.stderr).toBe(0);
    for (const [name, dir] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      const added = await svc(root, ['workspace', 'add', dir]);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(new RegExp(`^name\\s+${name}$`, 'm'));
      expect(added.stdout).toMatch(new RegExp(`^path\\s+${dir}$`, 'm'));
    }
    const shown = await svc(root, ['workspace', 'show', 'beta']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^path\\s+${beta}$`, 'm'));
  });

  it('2. svc workflow list shows both fix-adds with their workspaces and no error; validate exits 0 in each checkout', async () => {
    const listed = await svc(root, ['workflow', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('');
    const rows = listed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'))
      .filter((row) => row[0] === 'fix-add');
    expect(rows.map((row) => [row[4], row[5], row[6]])).toEqual(
      expect.arrayContaining([
        ["alpha's fix of add", join(alpha, '.svc/workflows/fix-add.yaml'), 'alpha'],
        ["beta's fix of add", join(beta, '.svc/workflows/fix-add.yaml'), 'beta'],
      ]),
    );
    expect(rows).toHaveLength(2);
    for (const dir of [alpha, beta]) {
      const validated = await svc(dir, ['workflow', 'validate']);
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
      expect(validated.stdout).toMatch(/^ok: \d+ workflow files? valid$/m);
    }
  });

  it("3. svc run fix-add inside A runs A's definition in a worktree; diff shows it; merge lands it once", async () => {
    const before = treeDigest(alpha, { skipGit: true });
    const ran = await svc(alpha, ['run', 'fix-add'], 30_000);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const runId = announcedRun(ran);
    const first = ran.stdout.split('\n')[0]!;
    expect(first).toMatch(new RegExp(`^fix-add: on workspace alpha \\(ws_\\w+\\), in worktree \\S+ \\(branch svc/${runId}\\); your checkout is not touched$`));
    // A's definition: its check node ran (B's fix-add has none).
    expect(ran.stdout).toMatch(/✔ check/);
    expect(treeDigest(alpha, { skipGit: true })).toBe(before);
    expect(git(alpha, 'status', '--porcelain')).toBe('');

    const diff = await svc(alpha, ['runs', 'diff', runId]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('-add() { echo $(( $1 - $2 )); }');
    expect(diff.stdout).toContain('+add() { echo $(( $1 + $2 )); }');

    const merged = await svc(alpha, ['runs', 'merge', runId]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^Merged into main/);
    expect(readFileSync(join(alpha, 'add.sh'), 'utf8')).toBe(ADD_FIXED);
    expect(git(alpha, 'status', '--porcelain')).toBe('');

    const again = await svc(alpha, ['runs', 'merge', runId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Already landed: main/);
  });

  it("4. a failing test node: svc run exits 1 with the test's last lines; svc runs logs prints the whole log", async () => {
    const ran = await svc(alpha, ['run', 'test-add'], 30_000);
    expect(ran.code, ran.stdout + ran.stderr).toBe(1);
    const runId = announcedRun(ran);
    const output = ran.stdout + ran.stderr;
    expect(output).toContain('✖ test exited with code 1');
    expect(output).toMatch(/not ok 41 - add 2 2: expected 5, got \d+/);
    expect(output).toContain('ok 40 - add case 40');
    // The last lines, not the whole log.
    expect(output).not.toContain('ok 1 - add case 1\n');

    const logs = await svc(alpha, ['runs', 'logs', runId, 'test']);
    expect(logs.code, logs.stderr).toBe(0);
    const lines = logs.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('ok 1 - add case 1');
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toMatch(/^not ok 41 - add 2 2: expected 5, got \d+$/);
  });

  it('5. a lint node with continue_on_error fails, the run completes, exit 0, the tolerated failure shown', async () => {
    const ran = await svc(alpha, ['run', 'lint-then-test'], 30_000);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const runId = announcedRun(ran);
    expect(ran.stdout).toContain('✖ lint exited with code 1 (tolerated: continue_on_error)');
    expect(ran.stdout).toContain('add.sh:1 style, line too long');
    expect(ran.stdout).toMatch(/✔ test/);
    expect(ran.stdout).toMatch(new RegExp(`^completed lint-then-test ${runId} .*1 failure tolerated \\(lint\\)$`, 'm'));
  });

  it('6. two parallel runs on B (--detach twice), both completed, each in its own worktree and branch', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const detached = await svc(beta, ['run', 'fix-add', '--detach']);
      expect(detached.code, detached.stderr).toBe(0);
      const id = detached.stdout.trim();
      expect(id).toMatch(/^run_\S+$/);
      ids.push(id);
    }
    expect(new Set(ids).size).toBe(2);
    const watched = await Promise.all(ids.map((id) => svc(beta, ['watch', id, '--exit-status'], 30_000)));
    for (const [i, watch] of watched.entries()) {
      expect(watch.code, watch.stdout + watch.stderr).toBe(0);
      expect(watch.stdout).toContain(`completed fix-add ${ids[i]}`);
    }
    const worktrees = new Set<string>();
    for (const id of ids) {
      const shown = await svc(beta, ['runs', 'show', id, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      const run = JSON.parse(shown.stdout);
      expect(run).toMatchObject({ status: 'completed', branch: `svc/${id}` });
      worktrees.add(run.cwd);
      // B's definition ran (it leaves its run id), on its own branch.
      const diff = await svc(beta, ['runs', 'diff', id]);
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stdout).toContain(`+# fixed by beta in ${id}`);
    }
    expect(worktrees.size).toBe(2);
    const listed = await svc(beta, ['workspace', 'envs', 'beta']);
    expect(listed.code, listed.stderr).toBe(0);
    for (const id of ids) expect(listed.stdout).toContain(`svc/${id}`);
    // B's checkout is as it was.
    expect(readFileSync(join(beta, 'add.sh'), 'utf8')).toBe(ADD_BROKEN);
  });

  it('7. a webhook trigger saved in B is listed within 3 s; a signed delivery starts a run that completes', async () => {
    await writeFile(
      join(beta, '.svc', 'workflows', 'on-push.yaml'),
      [
        'name: on-push',
        'description: beta reacts to a push',
        'nodes:',
        '  - id: react',
        '    bash: echo "delivery $WEBHOOK_IDEMPOTENCY_KEY ($WEBHOOK_EVENT)"',
        'triggers:',
        '  webhook:',
        '    - { event: push, slug: beta-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }',
      ].join('\n') + '\n',
    );
    const saved = Date.now();
    let row: string | undefined;
    // The bound: a `svc webhook list` started within 3 s of the save shows the trigger.
    while (row === undefined && Date.now() - saved < 3_000) {
      const listed = await svc(beta, ['webhook', 'list']);
      expect(listed.code, listed.stderr).toBe(0);
      row = listed.stdout.split('\n').find((line) => line.startsWith('beta-push\t'));
    }
    expect(row, 'beta-push listed by a svc webhook list started within 3 s of the save').toBeDefined();
    expect(row!.split('\t').slice(0, 4)).toEqual(['beta-push', 'on-push', 'push', 'PUSH_SECRET (set)']);
    expect(row).not.toContain(SECRET);

    const delivery = await deliver(serve.url, 'beta-push', JSON.stringify({ event: 'push', ref: 'refs/heads/main', delivery_id: 'first-hour-1' }));
    expect(delivery.status, JSON.stringify(delivery.body)).toBe(202);
    const runId = delivery.body.run_id as string;
    const watched = await svc(beta, ['watch', runId, '--exit-status'], 30_000);
    expect(watched.code, watched.stdout + watched.stderr).toBe(0);
    const shown = await svc(beta, ['runs', 'show', runId, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'completed', trigger: 'webhook', workflow: 'on-push' });
    const logs = await svc(beta, ['runs', 'logs', runId, 'react']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toBe('delivery first-hour-1 (push)\n');
  });

  it('8. --json failures: one {"error": …} document on stdout with the documented exit code', async () => {
    const missing = await svc(root, ['runs', 'show', 'nope', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('');
    expect(missing.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(missing.stdout)).toEqual({ error: 'run_not_found', message: expect.any(String) });

    // Outside both checkouts, `fix-add` is ambiguous: the answer names both workspaces.
    const ambiguous = await svc(root, ['run', 'fix-add', '--json']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toBe('');
    const body = JSON.parse(ambiguous.stdout);
    expect(body.error).toBe('workflow_not_found');
    expect(body.message).toContain('alpha');
    expect(body.message).toContain('beta');

    const usage = await svc(root, ['runs', 'show', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ error: 'usage_error' });
  });

  it('9. every command above ended by itself (svc() fails a test otherwise); the server is still up, the checkouts clean', async () => {
    const status = await svc(root, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(serve.child.exitCode).toBeNull();
    expect(existsSync(join(alpha, '.svc', 'workflows', 'fix-add.yaml'))).toBe(true);
    expect(git(alpha, 'status', '--porcelain')).toBe('');
  });
});
