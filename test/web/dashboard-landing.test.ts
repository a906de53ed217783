// The run page's Merge, Push and Create PR buttons in Debian's Chromium: Merge lands the run's branch
// in the user's checked-out main and shows the merge commit, Push sends it to the bare origin, and
// Create PR shows the server's refusal (no gh) in the page. A landed run offers none of them, nor
// Resume (issue 32), also when the user landed it by hand and Merge found it already landed.
import { mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, getRun, startRun, startServer, tempDir, waitForStatus, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let browser: Browser;
let dir: string;
let bare: string;
let workspaceId: string;

beforeAll(async () => {
  const ghMissing = join(await tempDir('svc-web-land-gh-'), 'gh');
  server = await startServer({ socket: true, env: { SVC_GH_BIN: ghMissing } });
  dir = join(await tempDir('svc-web-land-'), 'project');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': '# demo\n' });
  await writeWorkflows(dir, [
    { name: 'landed', nodes: [{ id: 'write', bash: "printf 'from the run\\n' > feature.txt" }] },
    {
      name: 'half',
      nodes: [
        { id: 'write', bash: "printf 'half\\n' > half.txt" },
        { id: 'fail', bash: 'exit 1', depends_on: ['write'] },
      ],
    },
  ]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  bare = join(dir, '..', 'origin.git');
  git(dir, 'clone', '-q', '--bare', dir, bare);
  git(dir, 'remote', 'add', 'origin', bare);
  workspaceId = (await api(server, 'POST', '/api/workspaces', { path: dir })).body.id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

describe('landing a run from its page', () => {
  it('Push shows its outcome, Create PR its refusal, Merge the merge commit and updates the checkout; a landed run offers none of them again', async () => {
    const runId = await startRun(server, 'landed', { message: 'Add the feature', workspaceId });
    await waitForStatus(server, runId, 'completed');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${runId}`);
      await p.locator(`section[data-run-id="${runId}"][data-status="completed"]`).waitFor();
      const landing = p.locator('section.changes [data-landing]');
      await landing.locator('button[data-land="push"]:not([disabled])').click();
      const pushed = landing.locator('[data-land-outcome="push"][data-ok="true"]');
      await pushed.waitFor();
      await expect(pushed.textContent()).resolves.toBe(`Pushed svc/${runId} to origin`);
      expect(git(bare, 'rev-parse', `svc/${runId}`)).toBe((await getRun(server, runId)).headCommit);

      await landing.locator('button[data-land="pr"]:not([disabled])').click();
      const pr = landing.locator('[data-land-outcome="pr"][data-ok="false"]');
      await pr.waitFor();
      await expect(pr.textContent()).resolves.toContain('gh auth login');

      await landing.locator('button[data-land="merge"]:not([disabled])').click();
      const merged = landing.locator('[data-land-outcome="merge"][data-ok="true"]');
      await merged.waitFor();
      const commit = git(dir, 'rev-parse', 'main');
      await expect(merged.textContent()).resolves.toBe(`Merged into main: ${commit.slice(0, 10)}`);
      expect((await getRun(server, runId)).merged).toMatchObject({ into: 'main', commit });
      expect(readFileSync(join(dir, 'feature.txt'), 'utf8')).toBe('from the run\n');
      // Landed (issue 32): the page, once it has the run's record again, offers no Merge, Push or PR.
      await landing.locator('button[data-land]').first().waitFor({ state: 'detached' });
      await expect(merged.textContent()).resolves.toContain(commit.slice(0, 10));
      await screenshot(p, 'run-landing');
      expect(problems.filter((problem) => !/409/.test(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a failed run the user merged by hand: Merge says already landed, and then neither Resume nor the landing buttons are offered', async () => {
    const runId = await startRun(server, 'half', { message: 'Half a feature', workspaceId });
    await waitForStatus(server, runId, 'failed');
    git(dir, 'merge', '-q', '--no-edit', `svc/${runId}`);
    const main = git(dir, 'rev-parse', 'main');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${runId}`);
      await p.locator(`section[data-run-id="${runId}"][data-status="failed"]`).waitFor();
      await p.locator('button[data-action="resume"]').waitFor();
      const landing = p.locator('section.changes [data-landing]');
      await landing.locator('button[data-land="merge"]:not([disabled])').click();
      const outcome = landing.locator('[data-land-outcome="merge"][data-ok="true"]');
      await outcome.waitFor();
      await expect(outcome.textContent()).resolves.toBe(`Already landed in main: ${main.slice(0, 10)}`);
      expect((await getRun(server, runId)).merged).toMatchObject({ into: 'main', commit: main, alreadyLanded: true });
      expect(git(dir, 'rev-parse', 'main')).toBe(main);
      await landing.locator('button[data-land]').first().waitFor({ state: 'detached' });
      await p.locator('button[data-action="resume"]').waitFor({ state: 'detached' });
      expect(await p.locator('button[data-action="delete"]').count()).toBe(1);
      expect(problems.filter((problem) => !/409/.test(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
