// The run page in Debian's Chromium shows the version a run executes (docs/decisions.md, "Versions"): its short hash, whether the workflow changed since, and a link to the runs of the
// same version, which lists exactly those.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, projectWithWorkflows, startRun, startServer, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';

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

describe('a run’s version on the run page', () => {
  it('shows the short hash, says the workflow changed since, and links the runs of the same version', async () => {
    const project = await projectWithWorkflows([{ name: 'versioned', nodes: [{ id: 'work', bash: 'echo one' }] }]);
    const first = await waitForRun(server, await startRun(server, 'versioned', { message: '', cwd: project }));
    const again = await waitForRun(server, await startRun(server, 'versioned', { message: '', cwd: project }));
    await writeWorkflows(project, [{ name: 'versioned', nodes: [{ id: 'work', bash: 'echo two' }] }]);
    const edited = await waitForRun(server, await startRun(server, 'versioned', { message: '', cwd: project }));
    expect(edited.definitionHash).not.toBe(first.definitionHash);

    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${first.id}`);
      await p.locator(`section[data-run-id="${first.id}"]`).waitFor();
      await expect(p.locator('[data-version]').innerText()).resolves.toBe(`${first.definitionHash.slice(0, 8)} (the workflow changed since)`);
      await p.locator('[data-version] a').click();
      await p.locator('[data-version-filter]').waitFor();
      await p.locator(`tr[data-run-id="${first.id}"]`).waitFor();
      await expect(p.locator('tr[data-run-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))).resolves.toEqual([
        again.id,
        first.id,
      ]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
