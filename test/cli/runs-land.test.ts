// `svc runs merge | push | pr` through the built binary against a running server: exit 0 with the
// outcome on stdout (or --json), exit 1 with the refusal on stderr, exit 2 for --squash --ff-only.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { runCli } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let ghDir: string;

beforeAll(async () => {
  ghDir = await tempDir('svc-cli-gh-');
  // A stand-in gh: the arguments of `gh pr create`, NUL-separated, to a file; then the URL it "opened".
  // Anything else (following the pull request: `gh pr view`) fails and records nothing.
  writeFileSync(
    join(ghDir, 'gh'),
    `#!/bin/sh\n[ "$1 $2" = "pr create" ] || exit 1\nfor a in "$@"; do printf '%s\\0' "$a"; done > "$(dirname "$0")/argv"\necho https://github.com/me/demo/pull/3\n`,
  );
  chmodSync(join(ghDir, 'gh'), 0o755);
  server = await startServer({ socket: true, env: { SVC_GH_BIN: join(ghDir, 'gh') } });
});

afterAll(cleanupAll);

let made = 0;
/** A repository cloned by the user from a bare origin, registered by path, and a finished run that added a file. */
async function finishedRun(): Promise<{ dir: string; bare: string; run: Json }> {
  const name = `land-cli-${(made += 1)}`;
  const parent = await tempDir('svc-cli-land-');
  const seed = join(parent, 'seed');
  mkdirSync(seed);
  makeRepository(seed);
  await writeWorkflows(seed, [{ name, nodes: [{ id: 'add', bash: "printf 'added\\n' > added.txt" }] }]);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'workflows');
  const bare = join(parent, 'origin.git');
  git(parent, 'clone', '-q', '--bare', seed, bare);
  const dir = join(parent, 'mine');
  git(parent, 'clone', '-q', bare, dir);
  const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
  const run = await waitForRun(server, await startRun(server, name, { message: 'Add a file', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  return { dir, bare, run };
}

const svc = (args: string[], input?: string) => runSvcInProcess(['--url', server.url, 'runs', ...args], { SVC_HOME: server.home }, { input });

describe('svc runs merge, push, pr', () => {
  it('merge: exit 0 with the commit; --json; a dirty checkout exits 1 with the files on stderr; --squash --ff-only is a usage error', async () => {
    const { dir, run } = await finishedRun();
    writeFileSync(join(dir, 'README.md'), 'dirty\n');
    const refused = await svc(['merge', run.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/dirty_checkout|not committed/);
    expect(refused.stderr).toContain('README.md');
    expect(refused.stdout).toBe('');
    git(dir, 'checkout', '--', 'README.md');

    expect((await svc(['merge', run.id, '--squash', '--ff-only'])).code).toBe(2);

    const merged = await svc(['merge', run.id, '--squash', '-m', 'Squashed by the CLI', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    const answer = JSON.parse(merged.stdout);
    expect(answer).toMatchObject({ merged: true, into: 'main', strategy: 'squash' });
    expect(git(dir, 'rev-parse', 'main')).toBe(answer.commit);
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('Squashed by the CLI');
    expect(readFileSync(join(dir, 'added.txt'), 'utf8')).toBe('added\n');
    const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: server.home });
    expect(shown.stdout).toContain(`  merged:   into main (squash) ${answer.commit}\n`);
  });

  it('merge --ff-only prints the commit; push sends the branch to origin; pr --body - reads stdin and prints the URL', async () => {
    const { bare, run } = await finishedRun();
    const ff = await svc(['merge', run.id, '--ff-only', '--into', 'main']);
    expect(ff.code, ff.stderr).toBe(0);
    expect(ff.stdout).toBe(`Merged into main (fast-forward): ${run.headCommit}\n`);

    const pushed = await svc(['push', run.id]);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toBe(`Pushed svc/${run.id} to origin.\n`);
    expect(git(bare, 'rev-parse', `svc/${run.id}`)).toBe(run.headCommit);

    const failed = await svc(['push', run.id, '--remote', 'nowhere']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`Pushing svc/${run.id} to nowhere failed`);

    const pr = await svc(['pr', run.id, '--title', 'A file', '--body', '-', '--draft'], 'Body from stdin\n');
    expect(pr.code, pr.stderr).toBe(0);
    expect(pr.stdout).toBe('https://github.com/me/demo/pull/3\n');
    const argv = readFileSync(join(ghDir, 'argv'), 'utf8').split('\0');
    expect(argv).toEqual(['pr', 'create', `--head=svc/${run.id}`, '--base=main', '--title=A file', '--body=Body from stdin\n', '--draft', '']);
    const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: server.home });
    expect(shown.stdout).toContain('  pr:       https://github.com/me/demo/pull/3\n');
  });

  it("--json: a conflict is one JSON document on stdout with svc's code, exit 1 (the built CLI)", async () => {
    const { dir, run } = await finishedRun();
    // The run added added.txt; the user's branch adds it too, otherwise.
    writeFileSync(join(dir, 'added.txt'), 'mine\n');
    git(dir, 'add', 'added.txt');
    git(dir, 'commit', '-q', '-m', 'my own added.txt');
    const refused = await runCli(['--url', server.url, 'runs', 'merge', run.id, '--json'], { env: { SVC_HOME: server.home } });
    expect(refused.code).toBe(1);
    expect(refused.stdout.trim().split('\n')).toHaveLength(1);
    const body = JSON.parse(refused.stdout);
    expect(body).toEqual({ error: 'merge_conflict', message: expect.stringContaining('added.txt'), details: { files: ['added.txt'] } });
    expect(refused.stderr).toBe('');
    // Without --json, the same refusal is a sentence on stderr.
    const prose = await runCli(['--url', server.url, 'runs', 'merge', run.id], { env: { SVC_HOME: server.home } });
    expect(prose.code).toBe(1);
    expect(prose.stdout).toBe('');
    expect(prose.stderr).toBe(`svc: ${body.message}\n`);
  });
});
