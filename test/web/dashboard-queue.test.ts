// The landing queue in Debian's Chromium: a run's Queue button puts it in its workspace's queue, the
// run's page follows it to "Landed on main by the queue" (verified by `verify: node test.js` first),
// and the workspace's page lists the queue with each entry's state, a conflicting one naming its file.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startServer } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { edit, enqueue, finishedRun, queueRepository } from '../queue/fixture.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ socket: true });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

describe('the landing queue on the dashboard', () => {
  it("Queue on a run's page lands it once verified; the workspace's page lists the queue with each entry's state", async () => {
    const { dir, workspaceId } = await queueRepository(server, [
      edit('ten', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
      edit('eleven', "sed -i 's/exports.a = () => 1;/exports.a = () => 11;/' math.js"),
    ]);
    const first = await finishedRun(server, workspaceId, 'ten', 'Set a to ten');
    const second = await finishedRun(server, workspaceId, 'eleven', 'Set a to eleven');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${first}`);
      await p.locator(`section[data-run-id="${first}"][data-status="completed"]`).waitFor();
      const landing = p.locator('section.changes [data-landing]');
      await landing.locator('button[data-land="queue"]:not([disabled])').click();
      const queued = landing.locator('[data-land-outcome="queue"][data-ok="true"]');
      await queued.waitFor();
      await expect(queued.textContent()).resolves.toMatch(/^Queued for main \(place \d+\)/);
      await landing.locator('[data-queue-state]', { hasText: 'Landed on main by the queue' }).waitFor({ timeout: 30_000 });
      const main = git(dir, 'rev-parse', 'main');
      await expect(landing.locator('[data-queue-state]').textContent()).resolves.toContain(main.slice(0, 10));

      await enqueue(server, second);
      await p.goto(`${server.url}/#/workspaces/${workspaceId}`);
      const queue = p.locator(`[data-landing-queue="${workspaceId}"]`);
      await queue.locator(`tr[data-queue-entry="${first}"][data-state="landed"]`).waitFor();
      // The second conflicts: the page learns it from the stream, without a reload.
      const reworked = queue.locator(`tr[data-queue-entry="${second}"][data-state="needs_rework"]`);
      await reworked.waitFor({ timeout: 30_000 });
      await expect(reworked.textContent()).resolves.toContain('(math.js)');
      await screenshot(p, 'workspace-queue');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
