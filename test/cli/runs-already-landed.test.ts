// `svc runs merge` of a run whose branch the user already landed by hand (issue 32): through the
// built binary against a real server on an ephemeral port, on real git repositories. Merging what
// is already in the target is success — exit 0, "already landed" — and the run records it as
// landed (the API's `merged.alreadyLanded`, `svc runs show`), whether the user merged the branch,
// squashed it or cherry-picked it; nothing in the repository changes.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, makeRepository } from '../helpers/git.js';
import { api, cleanupAll, getRun, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ socket: true });
});
afterAll(cleanupAll);

let made = 0;
/** The user's repository, registered by path, and a completed run whose branch adds two files in two commits. */
async function finishedRun(): Promise<{ dir: string; run: Json }> {
  const name = `landed-by-hand-${(made += 1)}`;
  const dir = join(await tempDir('svc-landed-'), 'mine');
  mkdirSync(dir);
  makeRepository(dir);
  await writeWorkflows(dir, [
    {
      name,
      nodes: [
        { id: 'one', bash: "printf 'one\\n' > one.txt" },
        { id: 'two', bash: "printf 'two\\n' > two.txt", depends_on: ['one'] },
      ],
    },
  ]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
  const run = await waitForRun(server, await startRun(server, name, { message: 'Add two files', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  return { dir, run };
}

const svc = (...args: string[]) => runCli(['--url', server.url, ...args], { env: { SVC_HOME: server.home } });

describe('svc runs merge of a branch landed by hand', () => {
  it.each([
    ['merged', (dir: string, branch: string) => git(dir, 'merge', '-q', '--no-edit', branch)],
    ['squashed', (dir: string, branch: string) => (git(dir, 'merge', '-q', '--squash', branch), git(dir, 'commit', '-q', '-m', 'squash by hand'))],
    [
      'cherry-picked onto a main that moved on',
      (dir: string, branch: string) => {
        git(dir, 'commit', '-q', '--allow-empty', '-m', 'work of my own');
        git(dir, 'cherry-pick', `main..${branch}`);
      },
    ],
  ])('%s: exit 0 "already landed", the repository untouched, the run recorded as landed', async (_how, landByHand) => {
    const { dir, run } = await finishedRun();
    landByHand(dir, `svc/${run.id}`);
    const main = git(dir, 'rev-parse', 'main');
    const status = git(dir, 'status', '--porcelain');

    const merged = await svc('runs', 'merge', run.id.slice(0, 12));
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout.toLowerCase()).toContain('already landed');
    expect(merged.stdout).toContain(main);
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
    expect(git(dir, 'status', '--porcelain')).toBe(status);
    expect(readFileSync(join(dir, 'two.txt'), 'utf8')).toBe('two\n');

    const after = await getRun(server, run.id);
    expect(after.merged).toEqual({ into: 'main', commit: main, strategy: 'merge', alreadyLanded: true, at: expect.any(String) });
    expect(after.events.find((e: Json) => e.type === 'run_merged')).toMatchObject({ into: 'main', commit: main, alreadyLanded: true });
    const shown = await svc('runs', 'show', run.id);
    expect(shown.stdout).toContain(`  merged:   already landed in main (by hand) ${main}\n`);

    // Asked again, the same answer; --json says it.
    const again = await svc('runs', 'merge', run.id, '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ merged: true, into: 'main', commit: main, strategy: 'merge', alreadyLanded: true });
  });

  it('a branch whose changes are not in main is merged as before, not called landed', async () => {
    const { dir, run } = await finishedRun();
    const merged = await svc('runs', 'merge', run.id);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^Merged into main \(merge\): [0-9a-f]{40}\n$/);
    expect(git(dir, 'rev-parse', 'main^2')).toBe(run.headCommit);
    expect((await getRun(server, run.id)).merged).not.toHaveProperty('alreadyLanded');
  });
});
