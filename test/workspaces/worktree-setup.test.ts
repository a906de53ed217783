// Worktree setup (docs/decisions.md, "Worktree setup and $SVC_PORT"): `.svc/worktree.yaml` in the
// repository — `setup:` run once in each new worktree before the first node, on the run's stream as
// the step `setup` and in the run detail; a failure fails the run `setup_failed` with its output;
// `copy:` brings untracked files from the workspace's checkout (never committed; `..` refused; the
// env-leak gate applies); a resumed run does not set up again.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, eventTypes, getRun, startServer, waitForRun, type Json, type Workflow } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { registerProject, runOn } from '../helpers/registered-project.js';

afterEach(cleanupAll);

beforeAll(async () => {
  await useEmptyGitConfig();
});

/** A registered project whose `.svc/worktree.yaml` (when given) is committed with its workflows. */
const projectWithSetup = (server: TestServer, worktreeYaml: string | null, workflows: Workflow[]) =>
  registerProject(server, { files: { 'README.md': '# setup\n' }, workflows, extra: worktreeYaml === null ? {} : { '.svc/worktree.yaml': worktreeYaml } });

const READ: Workflow = { name: 'read', nodes: [{ id: 'first', bash: 'cat .setup-done' }] };

describe('worktree setup', () => {
  it('runs setup once before the first node: its output on the stream and in the run detail, its files there, committed apart', async () => {
    const server = await startServer({ socket: true });
    const setup = 'setup: |\n  echo preparing "$RUN_ID"\n  echo ready > .setup-done\n  echo "port $SVC_PORT" >&2\n';
    const { dir, workspace } = await projectWithSetup(server, setup, [READ]);
    const run = await runOn(server, 'read', workspace.id);
    expect(run.status, JSON.stringify(run)).toBe('completed');
    expect(run.nodes.first.output).toBe('ready');
    expect(run.setup).toMatchObject({ status: 'completed', copied: [] });
    expect(run.setup.output).toContain(`preparing ${run.id}`);
    expect(run.setup.output).toMatch(/port \d+/);
    expect(run.setup.durationMs).toBeGreaterThanOrEqual(0);

    const types = eventTypes(run);
    expect(types.indexOf('setup_started')).toBeGreaterThan(types.indexOf('run_started'));
    expect(types.indexOf('setup_finished')).toBeLessThan(types.indexOf('node_started'));
    const streamed = (run.events as Json[]).filter((event) => event.type === 'setup_output').map((event) => event.text as string);
    expect(streamed.join('')).toContain(`preparing ${run.id}`);
    expect((run.events as Json[]).find((event) => event.type === 'setup_finished')).toMatchObject({ status: 'completed' });

    // What the setup made is a commit of its own, before the node's (which changed nothing).
    expect(git(dir, 'log', '--format=%s', `${run.baseCommit}..svc/${run.id}`)).toBe('read: setup');
    expect(run.nodes.first).toMatchObject({ commit: null });
  });

  it('svc run --verbose (the built binary) follows the setup as a step, and svc runs show says how it went', async () => {
    const server = await startServer({ socket: true });
    const { workspace } = await projectWithSetup(server, "setup: 'echo preparing; echo ready > .setup-done'\n", [READ]);
    const env = { SVC_HOME: server.home };
    const result = await runSvcInProcess(['--url', server.url, 'run', 'read', '--workspace', workspace.id, '--verbose'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('[setup] preparing');
    expect(result.stdout).toMatch(/✔ setup /);
    expect(result.stdout.indexOf('✔ setup')).toBeLessThan(result.stdout.indexOf('[first] ready'));
    const { body } = await api(server, 'GET', '/api/workflows/runs?workflow=read');
    const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', body.runs[0].id], env);
    expect(shown.stdout).toMatch(/setup: {4}completed in /);
  });

  it('a failing setup fails the run setup_failed with its output; no node runs', async () => {
    const server = await startServer({ socket: true });
    const { workspace } = await projectWithSetup(server, "setup: 'echo installing; echo it broke >&2; exit 3'\n", [READ]);
    const run = await runOn(server, 'read', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^setup_failed: the setup exited with code 3\n/);
    expect(run.error).toContain('it broke');
    expect(run.setup).toMatchObject({ status: 'failed', error: 'the setup exited with code 3' });
    expect(run.setup.output).toContain('installing');
    expect(eventTypes(run)).not.toContain('node_started');
    expect(run.nodes.first.status).not.toBe('completed');
  });

  it('an invalid worktree.yaml fails the run before any node, with file:line:col', async () => {
    const server = await startServer({ socket: true });
    const { workspace } = await projectWithSetup(server, 'setup: echo hi\ncopy: notalist\nextra: 1\n', [READ]);
    const run = await runOn(server, 'read', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('setup_failed: ');
    expect(run.error).toMatch(/\.svc\/worktree\.yaml:2:7: copy: /);
    expect(run.error).toMatch(/\.svc\/worktree\.yaml:3:1: .*extra/);
    expect(eventTypes(run)).not.toContain('node_started');
    expect(run.setup.status).toBe('failed');
  });

  it("copies an untracked .env.local from the user's checkout, never commits it, and refuses a path leaving the repository", async () => {
    const server = await startServer({ socket: true });
    const workflow: Workflow = { name: 'env', nodes: [{ id: 'show', bash: 'cat config/.env.local; echo changed > README.md' }] };
    const { dir, workspace } = await projectWithSetup(server, 'copy:\n  - config/.env.local\n  - not-there.txt\n', [workflow]);
    // Untracked, and not ignored either: only svc's exclusion keeps it off the branch.
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', '.env.local'), 'APP_SECRET=local-only\n');
    const run = await runOn(server, 'env', workspace.id);
    expect(run.status, JSON.stringify(run)).toBe('completed');
    expect(run.nodes.show.output).toBe('APP_SECRET=local-only');
    expect(run.setup).toMatchObject({ status: 'completed', copied: ['config/.env.local'] });
    expect(run.setup.output).toContain('not copied, not in the workspace');
    expect(run.nodes.show.commit).toBeTruthy();
    expect(git(dir, 'ls-tree', '-r', '--name-only', `svc/${run.id}`)).not.toContain('.env.local');
    expect(readFileSync(join(run.cwd, 'config', '.env.local'), 'utf8')).toBe('APP_SECRET=local-only\n');

    const other = await projectWithSetup(server, 'copy:\n  - ../outside.txt\n', [{ name: 'escape', nodes: [{ id: 'a', bash: 'true' }] }]);
    writeFileSync(join(other.dir, '..', 'outside.txt'), 'not yours\n');
    const refused = await runOn(server, 'escape', other.workspace.id);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/setup_failed: \.svc\/worktree\.yaml:2:5: copy\[0\]: must stay inside the repository/);
    expect(eventTypes(refused)).not.toContain('node_started');

    // A symlink in the checkout that leads out of it is refused too, though its name looks harmless.
    const linked = await projectWithSetup(server, 'copy: [.env.shared]\n', [{ name: 'linked', nodes: [{ id: 'a', bash: 'true' }] }]);
    symlinkSync(join(linked.dir, '..', 'outside.txt'), join(linked.dir, '.env.shared'));
    writeFileSync(join(linked.dir, '..', 'outside.txt'), 'not yours\n');
    const viaLink = await runOn(server, 'linked', linked.workspace.id);
    expect(viaLink.status).toBe('failed');
    expect(viaLink.error).toContain("setup_failed: .svc/worktree.yaml: copy: '.env.shared' leads outside the repository");
    expect(existsSync(join(viaLink.cwd, '.env.shared'))).toBe(false);
  });

  it("a copied file that .gitignore hides (the usual .env.local) leaves the nodes' commits alone", async () => {
    const server = await startServer({ socket: true });
    const workflow: Workflow = { name: 'edit', nodes: [{ id: 'change', bash: 'cat .env.local; echo changed > README.md' }] };
    const { dir, workspace } = await registerProject(server, {
      files: { 'README.md': '# setup\n', '.gitignore': '.env.local\n' },
      workflows: [workflow],
      extra: { '.svc/worktree.yaml': 'copy: [.env.local]\n' },
    });
    writeFileSync(join(dir, '.env.local'), 'APP_SECRET=local-only\n');
    const run = await runOn(server, 'edit', workspace.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change.output).toBe('APP_SECRET=local-only');
    expect(run.nodes.change.commit).toBeTruthy();
    expect(git(dir, 'ls-tree', '-r', '--name-only', `svc/${run.id}`)).not.toContain('.env.local');
  });

  it('the env-leak gate applies to copied files: agent keys are not copied without consent', async () => {
    const server = await startServer({ socket: true });
    const { dir, workspace } = await projectWithSetup(server, 'copy: [.env.local]\n', [{ name: 'keys', nodes: [{ id: 'a', bash: 'cat .env.local' }] }]);
    writeFileSync(join(dir, '.env.local'), 'ANTHROPIC_API_KEY=sk-test-not-real\n');
    const blocked = await runOn(server, 'keys', workspace.id);
    expect(blocked.status).toBe('failed');
    expect(blocked.error).toContain('setup_failed: copying .env.local would put agent keys (ANTHROPIC_API_KEY) into the worktree');
    expect(blocked.error).not.toContain('sk-test-not-real');

    expect((await api(server, 'PATCH', `/api/workspaces/${workspace.id}`, { allowEnvKeys: true })).status).toBe(200);
    const allowed = await runOn(server, 'keys', workspace.id);
    expect(allowed.status, JSON.stringify(allowed)).toBe('completed');
    expect(allowed.setup.copied).toEqual(['.env.local']);
  });

  it('a resumed run keeps its worktree and does not run setup again', async () => {
    const server = await startServer({ socket: true });
    const flaky: Workflow = { name: 'flaky', nodes: [{ id: 'go', bash: '[ -f "$ARTIFACTS_DIR/go" ] && cat .setup-done' }] };
    const { workspace } = await projectWithSetup(server, 'setup: |\n  echo once >> "$ARTIFACTS_DIR/setups"\n  echo ready > .setup-done\n', [flaky]);
    const failed = await runOn(server, 'flaky', workspace.id);
    expect(failed.status).toBe('failed');
    expect(failed.setup.status).toBe('completed');
    const artifacts = join(server.home, 'data', 'runs', failed.id, 'artifacts');
    writeFileSync(join(artifacts, 'go'), '');
    expect((await api(server, 'POST', `/api/workflows/runs/${failed.id}/resume`)).status).toBe(200);
    const again = await api(server, 'POST', '/api/workflows/flaky/run', { message: '', conversationId: failed.conversationId, workspaceId: workspace.id });
    expect(again.body.runId).toBe(failed.id);
    const resumed = await waitForRun(
      server,
      failed.id,
      (run) => run.status === 'completed' || (run.status === 'failed' && run.finishedAt !== failed.finishedAt),
    );
    expect(resumed.status, JSON.stringify(resumed.nodes)).toBe('completed');
    expect(resumed.nodes.go.output).toBe('ready');
    expect(readFileSync(join(artifacts, 'setups'), 'utf8')).toBe('once\n');
    expect(eventTypes(await getRun(server, failed.id)).filter((type) => type === 'setup_started')).toHaveLength(1);
  });
});
