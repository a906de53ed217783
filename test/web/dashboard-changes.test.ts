// The run page's Changes section in Debian's Chromium: a run on a workspace whose node's commit is
// shown at its approval gate — the files with lines added and removed, the coloured patch, one node's.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitForStatus, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { makeRepository } from '../helpers/git.js';

// Evaluated in the page, where the DOM is; the tests' own types have no DOM library.
declare function getComputedStyle(element: unknown): { color: string };

let server: TestServer;
let browser: Browser;
let workspaceId: string;

beforeAll(async () => {
  server = await startServer({ socket: true });
  const dir = join(await tempDir('svc-web-changes-'), 'project');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': '# demo\nfirst line\n' });
  await writeWorkflows(dir, [
    {
      name: 'reviewed',
      nodes: [
        { id: 'write', bash: "printf 'feature line\\n' > feature.txt" },
        { id: 'tweak', bash: "printf '# demo\\nsecond line\\n' > README.md", depends_on: ['write'] },
        { id: 'gate', approval: { message: 'Look at the changes, then approve' }, depends_on: ['tweak'] },
      ],
    },
  ]);
  workspaceId = (await api(server, 'POST', '/api/workspaces', { path: dir })).body.id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

describe('the Changes section', () => {
  it('shows the files and the coloured diff beside the approval, for the run and for one node', async () => {
    const runId = await startRun(server, 'reviewed', { message: '', workspaceId });
    await waitForStatus(server, runId, 'paused');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${runId}`);
      await p.locator(`section[data-run-id="${runId}"][data-status="paused"]`).waitFor();
      const changes = p.locator('section.changes[data-changes="run"][aria-busy="false"]');
      await changes.locator('tr[data-file="feature.txt"]').waitFor();
      // Right after the approval box, before the graph.
      await expect(p.locator('.actions:has(.approval) + section.changes').count()).resolves.toBe(1);
      await expect(
        changes.locator('tbody tr').evaluateAll((rows) => rows.map((row) => (row as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim())),
      ).resolves.toEqual(['README.md modified +1 −1', 'feature.txt added +1 0']);
      const patch = changes.locator('pre[data-patch]');
      await expect(patch.locator('.diff-added').allTextContents()).resolves.toEqual(['+second line\n', '+feature line\n']);
      await expect(patch.locator('.diff-removed').allTextContents()).resolves.toEqual(['-first line\n']);
      const colours = await patch.evaluate((pre) => ({
        added: getComputedStyle(pre.querySelector('.diff-added')!).color,
        removed: getComputedStyle(pre.querySelector('.diff-removed')!).color,
        context: getComputedStyle(pre).color,
      }));
      expect(new Set(Object.values(colours)).size).toBe(3);
      await screenshot(p, 'run-changes-at-gate');

      // One node's commit only.
      await p.getByLabel('Show').selectOption('write');
      await p.locator('section.changes[data-changes="write"][aria-busy="false"] tr[data-file="feature.txt"]').waitFor();
      await expect(p.locator('section.changes tbody tr').count()).resolves.toBe(1);

      await p.getByRole('button', { name: 'Approve' }).click();
      await p.locator(`section[data-run-id="${runId}"][data-status="completed"]`).waitFor();
      // Still there once the run has ended, below the node output.
      await p.locator('.output-panel ~ section.changes tr[data-file="feature.txt"]').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is absent for a run that had no worktree', async () => {
    const dir = await tempDir('svc-web-changes-plain-');
    await writeWorkflows(dir, [{ name: 'plain', nodes: [{ id: 'a', bash: 'echo hi' }] }]);
    const runId = await startRun(server, 'plain', { message: '', cwd: dir });
    await waitForStatus(server, runId, 'completed');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${runId}`);
      await p.locator(`section[data-run-id="${runId}"][data-status="completed"]`).waitFor();
      await expect(p.locator('section.changes').count()).resolves.toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
