// A pool's refill stays inside the server's budgets (docs/decisions.md, "Setup cache and pool"):
// while a run waits for a run slot, no refill starts; once the queue has drained, the pool is
// prepared again. SVC_MAX_CONCURRENT_RUNS=1 and a run that holds the slot until the test lets it go.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { poolWorktrees, readyPoolWorktrees, recordingSetup, setupInvocations } from '../helpers/recorded-setup.js';
import { registerProject } from '../helpers/registered-project.js';
import { api, cleanupAll, startRun, startServer, tempDir, waitForRun, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let dir: string;
let workspaceId: string;
let log: string;
let release: string;

/** Holds its run's slot until `release` exists. */
const hold = (release: string): Workflow => ({ name: 'hold', nodes: [{ id: 'wait', bash: `while [ ! -e '${release}' ]; do sleep 0.05; done` }] });
const QUICK: Workflow = { name: 'quick', nodes: [{ id: 'done', bash: 'true' }] };

beforeAll(async () => {
  await useEmptyGitConfig();
  const scratch = await tempDir('svc-pool-budget-');
  log = join(scratch, 'setup.log');
  release = join(scratch, 'release');
  server = await startServer({ env: { SVC_MAX_CONCURRENT_RUNS: '1' } });
  const project = await registerProject(server, {
    files: { 'README.md': '# budget\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n' },
    workflows: [hold(release), QUICK],
    extra: { '.svc/worktree.yaml': recordingSetup(log, { pool: 1 }) },
  });
  dir = project.dir;
  workspaceId = project.workspace.id;
}, 60_000);

afterAll(async () => {
  if (!existsSync(release)) writeFileSync(release, '');
  await cleanupAll();
});

describe('refilling inside the run budget', () => {
  it('starts no refill while a run waits for a slot, and refills once the queue has drained', async () => {
    const tip = git(dir, 'rev-parse', 'main');
    await expect.poll(() => readyPoolWorktrees(server, workspaceId, tip), { timeout: 30_000 }).toBe(1);
    const held = await startRun(server, 'hold', { message: '', workspaceId });
    const waiting = await startRun(server, 'quick', { message: '', workspaceId });
    expect((await api(server, 'GET', `/api/workflows/runs/${waiting}`)).body.status).toBe('pending');
    // The held run took the pool's worktree; the refill its setup asked for meets a waiting run.
    await expect.poll(async () => (await api(server, 'GET', `/api/workflows/runs/${held}`)).body.setup?.source, { timeout: 10_000 }).toBe('pool');
    const invocations = setupInvocations(log);
    // Past the refill's delay after the setup and two of its retries: still nothing prepared or preparing.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await poolWorktrees(server, workspaceId)).toEqual([]);
    expect(setupInvocations(log)).toBe(invocations);

    writeFileSync(release, '');
    expect((await waitForRun(server, held)).status).toBe('completed');
    expect((await waitForRun(server, waiting)).status).toBe('completed');
    // The queue drained: the pool is full again (from the cache: the script does not run again).
    await expect.poll(() => readyPoolWorktrees(server, workspaceId, tip), { timeout: 30_000 }).toBe(1);
    expect(setupInvocations(log)).toBe(invocations);
  });
});
