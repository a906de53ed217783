// The run page in Debian's Chromium: a follow-on run links the run it follows, and that run lists
// its follow-ons (docs/decisions.md, "Follow-on runs"); the worktree setup is a step shown with its
// output, open when it failed (docs/decisions.md, "Worktree setup and $SVC_PORT").
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let browser: Browser;
let workspaceId: string;

beforeAll(async () => {
  server = await startServer({ socket: true });
  const dir = join(await tempDir('svc-web-follow-'), 'project');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': '# demo\n' });
  await writeWorkflows(dir, [
    { name: 'first', nodes: [{ id: 'write', bash: 'echo one > one.txt' }] },
    { name: 'second', nodes: [{ id: 'read', bash: 'cat one.txt' }] },
  ]);
  writeFileSync(join(dir, '.svc', 'worktree.yaml'), "setup: 'echo preparing the worktree'\n");
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  workspaceId = (await api(server, 'POST', '/api/workspaces', { path: dir })).body.id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

describe('follow-on runs and the setup step on the run page', () => {
  it('links both runs and shows the setup with its output', async () => {
    const first = await waitForRun(server, await startRun(server, 'first', { message: '', workspaceId }));
    const second = await waitForRun(server, await startRun(server, 'second', { message: '', fromRunId: first.id }));
    expect(second.status).toBe('completed');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${second.id}`);
      await p.locator(`section[data-run-id="${second.id}"]`).waitFor();
      await expect(p.locator('[data-from-run]').innerText()).resolves.toBe(`follows run ${first.id}`);
      const setup = p.locator('details.setup-step[data-setup-status="completed"]');
      await setup.locator('summary').click();
      await expect(setup.locator('pre[data-setup-output]').innerText()).resolves.toContain('preparing the worktree');
      await screenshot(p, 'run-follow-on-setup');

      await p.locator('[data-from-run] a').click();
      await p.locator(`section[data-run-id="${first.id}"]`).waitFor();
      await expect(p.locator('[data-follow-ons] a').allTextContents()).resolves.toEqual([second.id]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
