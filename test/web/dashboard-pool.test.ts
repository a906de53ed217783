// The setup cache and the pool in Debian's Chromium (docs/decisions.md, "Setup cache and pool"; issue
// 35): a run's setup step says which path its worktree took — `setup` (the script ran), `cache hit`
// (restored from the setup cache) or `pool` (a worktree prepared ahead) — with its duration, and the
// workspace's page lists the pool's worktrees with their state and commit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/web/format.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { poolWorktrees, readyPoolWorktrees, recordingSetup, setupInvocations } from '../helpers/recorded-setup.js';
import { registerProject, runOn } from '../helpers/registered-project.js';
import { api, cleanupAll, startServer, tempDir, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let dir: string;
let workspaceId: string;
let invocations: string;

const READ: Workflow = { name: 'read', nodes: [{ id: 'deps', bash: 'cat node_modules/dep/VERSION' }] };
const tip = () => git(dir, 'rev-parse', 'main');

beforeAll(async () => {
  await useEmptyGitConfig();
  invocations = join(await tempDir('svc-web-pool-log-'), 'setup.log');
  server = await startServer({ socket: true });
  // No pool yet: the first runs take the setup's own path, then the cache's; `pool: 1` comes later.
  const project = await registerProject(server, {
    files: { 'README.md': '# pool\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n' },
    workflows: [READ],
    extra: { '.svc/worktree.yaml': recordingSetup(invocations, { pool: 0 }) },
  });
  dir = project.dir;
  workspaceId = project.workspace.id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

/** Runs `read` on the workspace to its end; it found the dependency tree. */
async function readRun(): Promise<Json> {
  const run = await runOn(server, 'read', workspaceId);
  expect(run.status, JSON.stringify(run.error)).toBe('completed');
  expect(run.nodes.deps.output).toBe('v1');
  return run;
}

/** The run's page, its setup step's path and duration as shown; a screenshot of it. */
async function setupShown(page: Page, run: Json, name: string) {
  await page.goto(`${server.url}/#/runs/${run.id}`);
  await page.locator(`section[data-run-id="${run.id}"][data-status="completed"]`).waitFor();
  const summary = page.locator('details.setup-step[data-setup-status="completed"] > summary');
  const shown = {
    path: await summary.locator('[data-setup-source]').innerText(),
    source: await summary.locator('[data-setup-source]').getAttribute('data-setup-source'),
    duration: await summary.locator('[data-setup-duration]').innerText(),
    summary: await summary.innerText(),
  };
  await screenshot(page, name);
  return shown;
}

/** The workspace's page, loaded anew, once it lists `count` pool worktrees. */
async function poolShown(page: Page, count: number) {
  await page.goto(`${server.url}/#/workspaces/${workspaceId}`);
  await page.reload();
  const pool = page.locator(`[data-workspace-id="${workspaceId}"] [data-pool-size]`);
  await pool
    .locator('[data-pool-state]')
    .nth(count - 1)
    .waitFor();
  return pool;
}

describe('the worktree setup path on the run page, and the pool on the workspace page', () => {
  it('a first cold run: `setup`, with its duration', async () => {
    const run = await readRun();
    expect(run.setup).toMatchObject({ status: 'completed', source: 'setup' });
    expect(setupInvocations(invocations)).toBe(1);
    const { page, problems, context } = await openPage(browser);
    try {
      const shown = await setupShown(page, run, 'run-setup-cold');
      expect(shown).toMatchObject({ path: 'setup', source: 'setup', duration: formatDuration(run.setup.durationMs) });
      expect(shown.summary).toMatch(/^Setup\s+completed\s+setup\s+\S+ m?s — nothing prepared ahead or cached$/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the cache warm and no pool: `cache hit`, with its duration', async () => {
    const run = await readRun();
    expect(run.setup).toMatchObject({ status: 'completed', source: 'cache' });
    expect(setupInvocations(invocations)).toBe(1);
    const { page, problems, context } = await openPage(browser);
    try {
      const shown = await setupShown(page, run, 'run-setup-cache-hit');
      expect(shown).toMatchObject({ path: 'cache hit', source: 'cache', duration: formatDuration(run.setup.durationMs) });
      expect(shown.summary).toMatch(/^Setup\s+completed\s+cache hit\s+\S+ m?s — restored from the setup cache: the setup script did not run$/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('`pool: 1`: the workspace page lists the prepared worktree, its state and commit; a run takes it (`pool`, with its duration) and the pool refills', async () => {
    writeFileSync(join(dir, '.svc', 'worktree.yaml'), recordingSetup(invocations, { pool: 1 }));
    git(dir, 'commit', '-qam', 'pool: 1');
    // The server notices the new `pool:` on its next look at the tip (every 10 s).
    await expect.poll(() => readyPoolWorktrees(server, workspaceId, tip()), { timeout: 30_000 }).toBe(1);
    // Prepared from the cache: the script did not run again.
    expect(setupInvocations(invocations)).toBe(1);
    const [prepared] = await poolWorktrees(server, workspaceId);
    const { page, problems, context } = await openPage(browser);
    try {
      let pool = await poolShown(page, 1);
      await expect(pool.innerText()).resolves.toMatch(/^1 of 1 prepared worktrees ready/);
      const row = pool.locator('[data-pool-state="ready"]');
      await expect(row.locator('[data-pool-commit]').innerText()).resolves.toBe(tip().slice(0, 12));
      await expect(row.innerText()).resolves.toMatch(/^ready\s+[0-9a-f]{12}\s+prepared .* from the setup cache/);
      await screenshot(page, 'workspace-pool-ready');

      const run = await readRun();
      expect(run.setup).toMatchObject({ status: 'completed', source: 'pool' });
      expect(run.baseCommit).toBe(tip());
      expect(setupInvocations(invocations)).toBe(1);
      const shown = await setupShown(page, run, 'run-setup-pool');
      expect(shown).toMatchObject({ path: 'pool', source: 'pool', duration: formatDuration(run.setup.durationMs) });
      expect(shown.summary).toMatch(/^Setup\s+completed\s+pool\s+\S+ m?s — a worktree prepared ahead: the setup script did not run for this run$/);

      // Refilled: another worktree, ready at the same tip, listed in its place.
      await expect.poll(() => readyPoolWorktrees(server, workspaceId, tip()), { timeout: 30_000 }).toBe(1);
      const [refilled] = await poolWorktrees(server, workspaceId);
      expect(refilled!.name).not.toBe(prepared!.name);
      pool = await poolShown(page, 1);
      await expect(pool.locator('[data-pool-state="ready"]').getAttribute('data-pool-name')).resolves.toBe(refilled!.name);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the pool emptied by a clean-up: the next run is a `cache hit` again', async () => {
    const cleaned = await api(server, 'POST', '/api/workspaces/cleanup', { workspaceId });
    expect(cleaned.status, JSON.stringify(cleaned.body)).toBe(200);
    expect(await poolWorktrees(server, workspaceId)).toEqual([]);
    const { page, problems, context } = await openPage(browser);
    try {
      await page.goto(`${server.url}/#/workspaces/${workspaceId}`);
      const pool = page.locator(`[data-workspace-id="${workspaceId}"] [data-pool-size="1"]`);
      await expect(pool.innerText()).resolves.toMatch(/^0 of 1 prepared worktrees ready/);
      const run = await readRun();
      expect(run.setup.source).toBe('cache');
      const shown = await setupShown(page, run, 'run-setup-cache-hit-pool-empty');
      expect(shown).toMatchObject({ path: 'cache hit', duration: formatDuration(run.setup.durationMs) });
      expect(setupInvocations(invocations)).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
